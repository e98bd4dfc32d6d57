function inAnimate
    include_global
    Point = Point_struct;

    Points_anim = [];

    xmin = -5.5; xmax = 5.5;
    ymin = -7.5; ymax = 20;
    zmin = 0; zmax = 7;

    AZ = 0;    %Angulo para mejor visualización del fenómeno
    EL = 0;
