function inForces
    include_global
    Force = Force_struct;

    S1 = Force;
    S1.type = 'weight'; % include the weight
    S1.gravity = 9.81;

S2 = Force;
S2.type = 'sph_pln';
S2.iPindex = 1;
S2.iBindex = 2;
S2.jBindex = 1;
S2.plane_normal_vector = [sqrt(1)/2;0;sqrt(3)/2]; %plano inclinado 150°
S2.sphere_radius = 1;
S2.restitution = 1;
S2.force_model = 'lankarani';
S2.n_exponent = 1.5;
S2.friction = false;
S2.fric_model = 'linear';
S2.mu = 0.5;
S2.mus = 0.6;
%Variables de fricción(mu, mus, vs, z, sigma0, sigma1, sdw) se
%utiliza los valores por defecto

S3 = Force;
S3.type = 'sph_pln';
S3.iPindex = 1;
S3.iBindex = 2;
S3.jBindex = 3;
S3.plane_normal_vector = [-sqrt(1)/2;0;sqrt(3)/2]; %plano inclinado 30°
S3.sphere_radius = 1;
S3.restitution = 1;
S3.force_model = 'lankarani';
S3.n_exponent = 1.5;
S3.friction = false;
S3.fric_model = 'linear';
S3.mu = 0.5;
S3.mus = 0.6;
Forces = [S1;S2;S3];
