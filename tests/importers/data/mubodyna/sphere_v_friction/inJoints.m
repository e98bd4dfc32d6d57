function inJoints
    include_global
    Joint = Joint_struct;

    J1 = Joint;
    J1.type = 'fix';
    J1.iBindex = 1;

    J2 = Joint;
    J2.type = 'fix';
    J2.iBindex = 3;

    Joints = [J1;J2];
