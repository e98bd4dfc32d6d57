
function inSolver
    include_global

    correct_ic = 'n';           % no corregimos errores iniciales
    t_final = 5;               % tiempo final de simulación
    dt = 0.02;                 % reporting time step
    method = 'standard';       % método de resolución de ecuaciones

