// Camel Pyramid slider switch bracket: holds a lever microswitch against the pyramid's slider so
// that pushing the slider closes the switch and letting it go (the die drops) opens it again.
//
// How the first-edition pyramid works: it is shaken, turned upside down with its top on the table,
// and the slider (the cardboard carriage through the top) is pushed to open the hole and drop one
// die; its elastic band pulls it back when let go. The bracket sits on the pyramid face beside the
// slider's outer end, the switch's lever in the end's path: the lever is pressed in the last
// millimetres of the push. Fix it with removable double-sided foam tape (or glue if you do not
// mind), so the game stays playable without it. The switch's two wires (COM, NO) leave through
// the cable clip to a 2-pin plug: see hardware/README.md.
//
// Slotted holes let the switch slide `adjust` mm along the slider's travel to set the trip point.
// Measure your pyramid: slider_w, slider_t and face_angle below.

/* [Switch: KW11-3Z / SS-5GL size lever microswitch, check yours] */
sw = [20, 6.4, 10.2];    // body length (along the travel), thickness, height
sw_hole_d = 2.4;         // for M2 screws
sw_hole_pitch = 9.5;
sw_hole_up = 2.9;        // hole centres above the body's bottom edge
adjust = 4;              // slot length

/* [Pyramid] */
slider_w = 22;           // width of the slider's end where it meets the lever
slider_t = 3;            // slider thickness (cardboard)
face_angle = 0;          // angle of the pyramid face the pad sits on, from the slider's plane

/* [Bracket] */
pad = [40, 28, 2];       // foot glued or taped to the pyramid
wall_t = 3;
gap = 1.5;               // lever's free gap above the slider's surface

$fn = 40;

module slot(len, d) {
    hull() for (x = [-len / 2, len / 2]) translate([x, 0, 0]) cylinder(d = d, h = 20, center = true);
}

module bracket() {
    wall_h = sw[2] + slider_t + gap;
    rotate([face_angle, 0, 0]) translate([-pad[0] / 2, 0, 0]) cube(pad);
    // upright wall the switch screws to, along the slider's travel (x)
    difference() {
        translate([-pad[0] / 2, pad[1] - wall_t, 0]) cube([pad[0], wall_t, wall_h + pad[2]]);
        for (x = [-sw_hole_pitch / 2, sw_hole_pitch / 2])
            translate([x, pad[1], pad[2] + slider_t + gap + sw_hole_up]) rotate([90, 0, 0])
                slot(adjust, sw_hole_d);
    }
    // cable clip at the back: a hook the two wires are pressed into (strain relief)
    translate([pad[0] / 2 - 6, 0, 0]) difference() {
        cube([6, 8, 8]);
        translate([-1, 3, 2]) cube([8, 2.5, 4]);
    }
}

// the switch and the slider, for the preview only
module ghosts() {
    %translate([-sw[0] / 2, 28 - 3 - sw[1], 2 + slider_t + gap]) cube(sw);
    %translate([-60, 28 - 3 - sw[1] - slider_w - 2, 2]) cube([60 - sw[0] / 2 + 2, slider_w, slider_t]);
}

bracket();
if ($preview) ghosts();
