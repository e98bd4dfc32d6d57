function inForces
    include_global
    Force = Force_struct;

    S1 = Force;
    S1.type = 'ptp'; % "point to point"
    S1.V2index = 1;
    S1.k = 50;
    S1.el_0 = 8;
    S1.c = 0;
    S1.f_a = 0;

    S2 = Force;
    S2.type = 'weight'; % tipo peso
    S2.gravity = 9.81; % por defecto
    S2.wgt = [0; 0; -1]; % por defecto

    Forces = [S1; S2];
