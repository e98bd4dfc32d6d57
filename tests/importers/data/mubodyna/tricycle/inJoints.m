function inJoints
    include_global
    Joint = Joint_struct;

    J1 = Joint;    % Junta de revolución entre cuerpos 1-2
    J1.type = 'rev';
    J1.iPindex = 1;
    J1.jPindex = 2;
    J1.iVindex_a = 1;
    J1.jVindex_a = 2;

J2 = Joint;    % Junta de revolución entre cuerpos 2-3
J2.type = 'rev';
J2.iPindex = 3;
J2.jPindex = 4;
J2.iVindex_a = 3;
J2.jVindex_a = 4;

J3 = Joint;    % Junta de revolución entre cuerpos 1-4
J3.type = 'rev';
J3.iPindex = 5;
J3.jPindex = 6;
J3.iVindex_a = 5;
J3.jVindex_a = 6;

J4 = Joint;    % Junta de revolución entre cuerpos 1-5
J4.type = 'rev';
J4.iPindex = 7;
J4.jPindex = 8;
J4.iVindex_a = 5;
J4.jVindex_a = 7;

J5 = Joint;    % front wheel
J5.type = 'disk';
J5.disk = 'xyz';
J5.iBindex = 3;
J5.R = 0.2;

J6 = Joint;    % left-rear wheel
J6.type = 'disk';
J6.disk = 'nz';
J6.iBindex = 4;
J6.R = 0.2;

J7 = Joint;    % right-rear wheel
J7.type = 'disk';
J7.disk = 'z';
J7.iBindex = 5;
J7.R = 0.2;

J8 = Joint;    % steering driver
J8.type = 'rel-rot';
J8.iBindex = 1;
J8.jBindex = 2;
J8.jVindex_a = 2;
J8.iFunct = 1;

Joints = [J1; J2; J3; J4; J5; J6; J7; J8];
