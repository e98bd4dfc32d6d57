function inBodies
    include_global
    Body = Body_struct;

    B1 = Body;    % cuerpo central
    B1.mass = 50;
    % The thesis writes Jp = [1 0 0; 0 10 0; 0 0 1], which no rigid body has
    % (1 + 1 < 10): J_zz = 10 here, as in examples/tricycle.json.
    B1.Jp = [1  0  0
             0 10  0
             0  0 10];
    B1.r = [0.4; 0; 0.2];

B2 = Body;    % dirección
B2.r = [0.9; 0; 0.3];
B2.mass = 0.5;
B2.Jp = [0.5 0 0
         0 0.5 0
         0 0 0.5];

B3 = Body;    % rueda delantera
B3.r = [0.9; 0; 0.2];
B3.mass = 1;
B3.Jp = [0.01 0 0
         0 0.02 0
         0 0 0.01];

B4 = Body;    % rueda trasera izquierda
B4.r = [0.2; 0.3; 0.2];
B4.mass = 1;
B4.Jp = [0.01 0 0
         0 0.02 0
         0 0 0.01];

B5 = Body;    % rueda trasera derecha
B5.r = [0.2;-0.3; 0.2];
B5.mass = 1;
B5.Jp = [0.01 0 0
         0 0.02 0
         0 0 0.01];

Bodies = [B1; B2; B3; B4; B5];
