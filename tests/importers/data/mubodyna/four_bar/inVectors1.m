function inVectors1
    include_global
    Vector = Vector1_struct;

    V1 = Vector;
    V1.Bindex = 1;
    V1.sp = [1;0;0];

    V2 = Vector;
    V2.Bindex = 0;
    V2.sp = [1;0;0];

    V3 = Vector;
    V3.Bindex = 3;
    V3.sp = [1;0;0];

    V4 = Vector;
    V4.Bindex = 0;
    V4.sp = [1;1;0]/sqrt(2);

    Vectors1 = [V1; V2; V3; V4];
