function inForces
    include_global
    Force = Force_struct;

    S1 = Force;
    S1.type = 'weight';    % incluimos el peso

    S2 = Force;
    S2.type = 'np';    % esta fuerza aplica un momento constante
    S2.iBindex = 3;    % en el cuerpo 3
    S2.np = [0; 20; 0];

    Forces = [S1; S2];
