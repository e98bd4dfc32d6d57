function inFuncs
    include_global
    Funct = Funct_struct;

    Functs = [];
