function inVectors1
    include_global
    Vector = Vector1_struct;

    Vectors1 = [];
