
function inBodies
    include_global
    Body = Body_struct;

    B1 = Body;                                % Plano asociado a B1!!
    B1.r = [0; 0; 0];                          %Punto perteneciente al plano
    B1.mass = 100;
    B1.Jp = [0.1    0        0        % el vector normal será definido
            0      0.1      0        % en inForces al incluir la fuerza sph-pln
            0      0        0.1];

    B1.poisson = 0.3;
    B1.modulus = 290e9;

    B2 = Body;                                % Definición de la esfera
    B2.r = [-3; 0; 6];
    B2.mass = 5;
    B2.Jp = [2        0        0
            0        2        0
            0        0        2];
    B2.poisson = 0.3;
    B2.modulus = 290e9;

    B3 = Body;                                % Plano asociado a B3!!
    B3.r = [0; 0; 0];                          %Punto perteneciente al plano
    B3.mass = 100;
    B3.Jp = [0.1    0        0        % el vector normal será definido
            0      0.1      0        % en inForces al incluir la fuerza sph-pln
            0      0        0.1];
    B3.poisson = 0.3;
    B3.modulus = 290e9;

    Bodies = [B1; B2;B3];

