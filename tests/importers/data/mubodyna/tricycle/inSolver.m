function inSolver
    include_global

    %-----
    % This m-file contains all the necessary ingredients about the resolution
    % of the equations of motion, such as integrator used, final time, etc.
    %-----

    correct_ic = 'n';      % sin corregir condiciones iniciales
    t_final = 4;          % tiempo final de simulación
    dt = 0.02;           % reporting time step
    method = 'standard';  % método estándar de resolución

    %-----
