function inVectors2
    include_global
    Vector = Vector2_struct;

    V1 = Vector;
    V1.iPindex = 1;
    V1.jPindex = 4;

    Vectors2 = [V1];
