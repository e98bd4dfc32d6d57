function inPoints
    include_global
    Point = Point_struct;

    P1 = Point;
    P1.Bindex = 0;
    P1.sPp = [0;0;0];

    P2 = Point;
    P2.Bindex = 1;
    P2.sPp = [0;0.3;0];

    Points = [P1; P2];
