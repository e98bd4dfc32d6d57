function inAnimate
    include_global

    Point = Point_struct;
    P9=Point;
    P9.Bindex=2;           %Puntos del manillar.
    P9.sPp=[0;0.2;0.25];

    P10= Point;
    P10.Bindex=2;
    P10.sPp=[0;-0.2;0.25];

    Points_anim = [P9;P10]; %Vector output

    xmin = -3;  xmax = 6;
    ymin = -3;  ymax = 3;
    zmin = -1;  zmax = 1;

    %Parámetros de rotación del cubo de visualización.
    AZ = 130;   %130 grados desde elfrente
    EL = 20;    %elevación 20°
