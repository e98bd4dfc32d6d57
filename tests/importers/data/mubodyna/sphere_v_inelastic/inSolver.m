function inSolver
    include_global

    %-----
    % This m-file contains all the necessary ingredients about the resolution
    % of the equations of motion, such as integrator used, final time, etc.
    %-----

    correct_ic = 'y';           % Corrección de condiciones iniciales.
    t_final = 20;              % tiempo final de simulación
    dt = 0.01;                 % reporting time step
    method = 'standard';       % method used to solve the equations of motion
