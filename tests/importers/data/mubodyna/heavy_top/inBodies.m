function inBodies
    include_global
    Body = Body_struct;

    B1 = Body;
    B1.mass = 4.0;
    B1.Jp = [0.0375 0 0
             0 0.0270 0
             0 0 0.0375];
    B1.r = [0;-0.3;0];
    B1.p = [1;0;0;0];
    B1.w = [0;-5;0];

    Bodies = [B1];
