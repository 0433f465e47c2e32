// Camel Pyramid camera arm: a pole (aluminium tube or wooden dowel) on a base, a printed head
// at the top holding the Camera Module at the tilt the build guide computes, and a disc that
// carries the LED ring around the lens.
//
// Why these choices: the calculation (hardware/camera_geometry.md, `python -m
// firmware.geometry`) puts the lens about 550 mm above the board and 200 mm behind its near
// edge, tilted about 37 degrees from straight down. A printed pole that tall would wobble, so
// the pole is a bought tube; the head prints the tilt as a fixed wedge (no joint to drift
// between games). The "tongue" base slides under the board's near edge: the board's own weight
// holds the arm and the stop fixes the setback, so the camera sees the board the same way at
// every game.
//
// Print: PLA or PETG, 0.2 mm layers, 30 % infill. Plate, bases and clamp lie flat with no
// supports; the head stands on its socket's rim and needs supports (from the build plate only)
// under the wedge. The plate fixes to the wedge with two M3 x 20 screws and nuts on top.
// Render a part: openscad -D 'part="head"' -o head.stl camera_arm.scad

/* [What to render] */
part = "assembly"; // [assembly, head, plate, tongue_base, clamp]

/* [Placement: from the geometry calculation] */
lens_height = 550;   // mm, lens above the board's surface
tilt = 37;           // degrees from straight down, towards the board
setback = 200;       // mm, lens axis behind the board's near edge

/* [Pole] */
pole_d = 16;         // outer diameter of the tube or dowel
socket_depth = 35;   // how far the pole sits in each printed socket
clearance = 0.3;     // added to the pole's diameter in the sockets

/* [Camera Module and LED ring] */
cam_board = [25, 24];   // Camera Module 2/3 board
cam_holes = [21, 12.5]; // M2 hole pattern
cam_hole_from_top = 2;  // first hole row from the board's top edge
ring_od = 90;        // disc under the LED ring: at least the ring's outer diameter
plate_t = 3;

/* [Bases] */
tongue_len = 60;     // how far the tongue reaches under the board (past the stop)
tongue_t = 1.6;      // thin: the board's edge rests on it
base_w = 140;
table_max = 45;      // thickest table top the clamp takes

$fn = 64;

function pole_length() = lens_height - head_height() - base_socket_floor();
function head_height() = 30;
function base_socket_floor() = 4;

module socket(h = socket_depth) {
    difference() {
        cylinder(d = pole_d + 8, h = h);
        translate([0, 0, base_socket_floor()]) cylinder(d = pole_d + clearance, h = h);
        // M3 set screw, so the pole cannot turn
        translate([0, 0, h * 0.6]) rotate([0, 90, 0]) cylinder(d = 2.8, h = pole_d);
    }
}

// The head: a socket that slides onto the pole's top, an arm reaching towards the board and a
// wedge whose face is tilted so the camera looks `tilt` degrees from straight down.
module head() {
    difference() {
        union() {
            // socket opening downwards
            translate([0, 0, head_height()]) mirror([0, 0, 1]) socket(head_height());
            hull() {
                translate([0, 0, head_height() - 8]) cylinder(d = pole_d + 8, h = 8);
                translate([0, 30, head_height() - 8]) wedge_foot();
            }
            translate([0, 30, head_height() - 8]) wedge();
        }
        translate([0, 0, -1]) cylinder(d = pole_d + clearance, h = head_height() - 6);
        // two M3 holes into the wedge face for the plate
        translate([0, 30, head_height() - 8]) wedge_face() for (x = [-10, 10])
            translate([x, 0, -12]) cylinder(d = 3.3, h = 14);
    }
}

module wedge_foot() { translate([-15, -8, 0]) cube([30, 16, 8]); }

// transform onto the wedge's face: the camera's axis is the face's outward normal
module wedge_face() {
    translate([0, 8, 0]) rotate([180 + tilt, 0, 0]) children();
}

module wedge() {
    hull() {
        wedge_foot();
        wedge_face() translate([-15, -10, 0]) cube([30, 20, 0.01]);
    }
}

// The disc: the camera on M2 screws at its centre, the LED ring stuck around it, a slot for the
// ribbon cable, two M3 holes to the wedge.
module plate() {
    difference() {
        cylinder(d = ring_od, h = plate_t);
        for (x = [-cam_holes[0] / 2, cam_holes[0] / 2], y = [0, -cam_holes[1]])
            translate([x, cam_board[1] / 2 - cam_hole_from_top + y, -1]) cylinder(d = 2.2, h = 9);
        // ribbon slot below the camera
        translate([-9, -cam_board[1] / 2 - 6, -1]) cube([18, 2.5, plate_t + 2]);
        // mounting to the wedge, behind the camera's edge
        for (x = [-10, 10]) translate([x, cam_board[1] / 2 + 10, -1]) cylinder(d = 3.3, h = 9);
    }
    // 3 mm standoffs keep the camera's back components off the disc
    for (x = [-cam_holes[0] / 2, cam_holes[0] / 2], y = [0, -cam_holes[1]])
        translate([x, cam_board[1] / 2 - cam_hole_from_top + y, plate_t])
            difference() { cylinder(d = 5, h = 3); cylinder(d = 1.8, h = 4); }
}

// Tongue base: the pole socket on a weighted foot, a bar to a stop and a thin tongue under the
// board. The board's near edge butts against the stop, placed so that the LENS (which the head
// holds a little in front of the pole) ends up `setback` behind the edge; the board's weight on
// the tongue keeps the arm from tipping. About 285 mm long at setback 200: print it diagonally
// on a 220 mm bed; for much larger setbacks use the clamp instead.
module tongue_base() {
    reach = 30 + 8 * sin(tilt);  // horizontal offset of the lens in front of the pole axis
    stop_y = setback - reach;
    difference() {
        union() {
            translate([-base_w / 2, -60, 0]) cube([base_w, 80, 12]);
            translate([-15, 0, 0]) cube([30, stop_y, 6]);                   // bar
            translate([-40, stop_y - 4, 0]) cube([80, 4, 6]);                // the stop
            translate([-40, stop_y, 0]) cube([80, tongue_len, tongue_t]);    // under the board
            socket();
        }
        // pocket for ballast (steel washers or a sand bag, ~500 g)
        translate([-base_w / 2 + 12, -52, 4]) cube([base_w - 24, 38, 10]);
        translate([0, 0, base_socket_floor()]) cylinder(d = pole_d + clearance, h = 60);
    }
}

// C-clamp to a table's edge, pole socket on the upper jaw; tighten with an M6 bolt whose nut sits
// in the lower jaw's hex pocket.
module clamp() {
    jaw = 50; w = 40; t = 10;
    difference() {
        union() {
            translate([-w / 2, 0, 0]) cube([w, jaw, t]);                       // lower jaw
            translate([-w / 2, 0, t + table_max]) cube([w, jaw, t]);           // upper jaw
            translate([-w / 2, -t, 0]) cube([w, t, 2 * t + table_max]);        // spine
            translate([0, jaw - pole_d / 2 - 6, 2 * t + table_max]) socket();
        }
        translate([0, jaw / 2, -1]) cylinder(d = 6.5, h = t + 2);
        translate([0, jaw / 2, -1]) cylinder(d = 11.5, h = 5.5, $fn = 6);
        translate([0, jaw - pole_d / 2 - 6, 2 * t + table_max + base_socket_floor()])
            cylinder(d = pole_d + clearance, h = 60);
    }
}

module assembly() {
    color("silver") translate([0, 0, base_socket_floor()]) cylinder(d = pole_d, h = pole_length());
    color("orange") tongue_base();
    color("orange") translate([0, 0, lens_height - head_height()]) head();
    color("white") translate([0, 30, lens_height - 8]) wedge_face()
        translate([0, -(cam_board[1] / 2 + 10), 0]) plate();
    // the board's near edge, for scale (540 mm board)
    color("tan") translate([-270, setback - 30 - 8 * sin(tilt), tongue_t])
        cube([540, 540, 2]);
}

if (part == "assembly") assembly();
else if (part == "head") head();
else if (part == "plate") plate();
else if (part == "tongue_base") tongue_base();
else if (part == "clamp") rotate([0, 90, 0]) clamp();

echo(str("cut the pole to ", pole_length(), " mm"));
