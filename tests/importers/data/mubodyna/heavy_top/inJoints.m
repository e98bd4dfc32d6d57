function inJoints
    include_global
    Joint = Joint_struct;

    J1 = Joint;
    J1.type = 'sph';
    J1.iPindex = 2;
    J1.jPindex = 1;

    Joints = [J1];
