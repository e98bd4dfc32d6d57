function inFuncts
    include_global
    Funct = Funct_struct;

    C1 = Funct;
    C1.type = 'c';
    C1.x_start = 0;      % default
    C1.x_max = 0.6;
    C1.x_end = 1.2;
    C1.f_start = 0;     % default
    C1.f_max = pi/6;
    C1.f_end = 0;

    Functs = [C1];
