function inFuncfs
    include_global
    Funct = Funct_struct;

    Functs = [];
