function inPoints
    include_global
    Point = Point_struct;
    P1 = Point;
    P1.Bindex = 1;
    P1.sPp = [0.5; 0; 0.225];

    P2 = Point;
    P2.Bindex = 2;
    P2.sPp = [0; 0; 0.125];

    P3 = Point;
    P3.Bindex = 2;
    P3.sPp = [0; 0; -0.1];

    P4 = Point;
    P4.Bindex = 3;
    P4.sPp = [0; 0; 0];

    P5 = Point;
    P5.Bindex = 1;
    P5.sPp = [-0.2; 0.3; 0];

    P6 = Point;
    P6.Bindex = 4;
    P6.sPp = [0; 0; 0];

    P7 = Point;
    P7.Bindex = 1;
    P7.sPp = [-0.2; -0.3; 0];

    P8 = Point;
    P8.Bindex = 5;
    P8.sPp = [0; 0; 0];

    Points = [P1; P2; P3; P4; P5; P6; P7; P8];
