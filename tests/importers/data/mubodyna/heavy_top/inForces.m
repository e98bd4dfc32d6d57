function inForces
    include_global
    Force = Force_struct;

    S1 = Force;
    S1.type = 'weight'; % fuerza tipo peso
    S1.gravity = 9.81; % valor por defecto
    S1.wgt = [0; 0; -1]; % vector dirección de la gravedad por defecto

    Forces = [S1];
