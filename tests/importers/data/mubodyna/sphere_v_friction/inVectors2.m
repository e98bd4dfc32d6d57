function inVectors2
    include_global
    Vector = Vector2_struct;

    V1=Vector;
    V1.iPindex=4; %vector para ver el plano a 150°
    V1.jPindex=5;

    V2=Vector;
    V2.iPindex = 6; %Dibujo un vector para ver el plano30°
    V2.jPindex =7;

    Vectors2 = [V1;V2];
