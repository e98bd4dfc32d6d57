
function inAnimate
    include_global
    Point = Point_struct;

    P3 = Point;
    P3.Bindex = 1;
    P3.sPp = [0; -0.1; 0.1];

    P4 = Point;
    P4.Bindex = 1;
    P4.sPp = [0.1; -0.1; 0];

    P5 = Point;
    P5.Bindex = 1;
    P5.sPp = [0; -0.1; -0.1];

    P6 = Point;
    P6.Bindex = 1;
    P6.sPp = [-0.1; -0.1; 0];

    Points_anim = [P3;P4;P5;P6];

    % Definimos los vectores 3D que contiene el cubo de animación
    xmin = -0.4; xmax = 0.4;
    ymin = -0.4; ymax = 0.4;
    zmin = -0.4; zmax = 0.4;
    % Rotacion del cubo:
    % AZ rota al rededor del eje 'z', EL rota sobre el eje horizontal 'x'.
    AZ = 60; EL = -10;

