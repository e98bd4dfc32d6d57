function inAnimate
    include_global
    Point = Point_struct;

    Points_anim = [];    %no se definen puntos para visualización.

    %Variables para la animación en 3D:

    xmin = -5; xmax = 5;
    ymin = -5; ymax = 5;
    zmin = -2; zmax = 8;

    %Rotación de los ejes de coordenadas. AZ rota sobre el eje Z, EL
    %rota sobre el eje horizontal.
    AZ = 130;
    EL = -30;
