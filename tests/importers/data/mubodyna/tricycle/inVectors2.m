function inVectors2
    include_global
    Vector = Vector2_struct;

    Vectors2 = [];
