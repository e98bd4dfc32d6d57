function inVectors1
    include_global
    Vector = Vector1_struct;

    V1 = Vector;
    V1.Bindex = 1;
    V1.sp = [0; 0; 1];

    V2 = Vector;
    V2.Bindex = 2;
    V2.sp = [0; 0; 1];

    V3 = Vector;
    V3.Bindex = 2;
    V3.sp = [0; 1; 0];

    V4 = Vector;
    V4.Bindex = 3;
    V4.sp = [0; 1; 0];

    V5 = Vector;
    V5.Bindex = 1;
    V5.sp = [0; 1; 0];

    V6 = Vector;
    V6.Bindex = 4;
    V6.sp = [0; 1; 0];

    V7 = Vector;
    V7.Bindex = 5;
    V7.sp = [0; 1; 0];

    Vectors1 = [V1; V2; V3; V4;V5; V6; V7];
