function inPoints
    include_global
    Point = Point_struct;

    P1 = Point;
    P1.Bindex = 2;
    P1.sPp = [0; 0; 0];

    P2 = Point;
    P2.Bindex = 2;
    P2.sPp = [0; 0; 1];

P3 = Point;
P3.Bindex = 2;
P3.sPp = [0; 0; -1];

P4=Point;                                %Para dibujar un vector de plano150° y
P4.Bindex=1;                              %mejorar visualización
P4.sPp=[-10*3^(0.5);0;10];

P5=Point;
P5.Bindex=1;
P5.sPp=[0;0;-10];

P6=Point;                                %para dibujar el plano 3 a 30°
P6.Bindex=3;
P6.sPp=[10*3^(0.5);0; 10];

P7=Point;
P7.Bindex=3;
P7.sPp=[0;0;0];

Points = [P1; P2; P3;P4;P5;P6;P7];
