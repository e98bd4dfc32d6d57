
function inJoints
    include_global
    Joint = Joint_struct;

    J1 = Joint;
    J1.type = 'sph';
    J1.iPindex = 2;
    J1.jPindex = 3;

    J2 = Joint;
    J2.type = 'sph';
    J2.iPindex = 4;
    J2.jPindex = 5;

    J3 = Joint;
    J3.type = 'rev';
    J3.iPindex = 1;
    J3.jPindex = 8;
    J3.iVindex_a = 1;
    J3.jVindex_a = 2;

    J4 = Joint;
    J4.type = 'rev';
    J4.iPindex = 6;
    J4.jPindex = 7;
    J4.iVindex_a = 3;
    J4.jVindex_a = 4;

    J5 = Joint;
    J5.type = 'rel-rot';
    J5.iBindex = 1;
    J5.jVindex_a = 2;
    J5.iFunct = 1;

    Joints = [J1; J2; J3; J4; J5];

