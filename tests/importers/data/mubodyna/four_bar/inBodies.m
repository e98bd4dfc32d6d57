function inBodies
    include_global
    Body = Body_struct;

    B1 = Body;
    B1.mass = 0.5;
    B1.Jp = [0.03 0 0
            0 0.03 0
            0 0 0.03];
    B1.w = [2*pi; 0; 0];

    B2 = Body;
    B2.r = [0;2;4.5];
    phi = 51.34*pi/180;    %Como los ejes locales no son paralelos
    p2 = phi/2;           %hay que definir los parámetros de Euler.
    e0 = cos(p2);
    e1 = sin(p2);
    B2.p = [e0;e1;0;0];
    B2.mass = 0.15*10;
    B2.Jp = [0.02 0 0
            0 0.02 0
            0 0 0.02];

    B3 = Body;
    B3.r = [0;4;0];
    phi = 45*pi/180;
    p2 = phi/2;
    e0 = cos(p2);
    e3 = sin(p2);
    B3.p = [e0;0;0;e3];
    B3.mass = 0.15;
    B3.Jp = [0.02 0 0
            0 0.02 0
            0 0 0.02];

    Bodies = [B1; B2; B3];
