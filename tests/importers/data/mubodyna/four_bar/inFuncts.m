function inFuncts
    include_global
    Funct = Funct_struct;

    C1 = Funct;
    C1.type = 'a';
    C1.coeff = [0 2*pi 0];

    Funct = [C1];
