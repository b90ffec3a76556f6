//! The orthographic camera: which world directions become screen right, screen up and
//! depth, for each view and up axis.

use crate::{UpAxis, View};

/// A 3-vector; the crate takes plain arrays so callers need no maths library.
pub(crate) type V3 = [f32; 3];

pub(crate) fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

pub(crate) fn normalize(a: V3) -> Option<V3> {
    let len = dot(a, a).sqrt();
    (len > 0.0 && len.is_finite()).then(|| [a[0] / len, a[1] / len, a[2] / len])
}

/// An orthonormal view basis in world space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Camera {
    /// World direction that points right on screen.
    pub right: V3,
    /// World direction that points up on screen.
    pub up: V3,
    /// World direction the camera looks along: larger `dot(p, forward)` is farther away.
    pub forward: V3,
}

impl Camera {
    /// The basis for `view` on a stage whose up axis is `up`.
    ///
    /// Every view is first set up for Z-up (x right, y away from a front camera, z up)
    /// and then carried to Y-up by the rotation that takes Z-up's (x, y, z) to Y-up's
    /// (x, -z, y), so "front" means the same thing on both kinds of stage.
    pub fn new(view: View, up: UpAxis) -> Camera {
        let (right, screen_up, forward) = match view {
            View::Front => ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
            View::Side => ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]),
            View::Top => ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
            View::ThreeQuarter => {
                // From the front, 40 degrees round to the right and 30 degrees above.
                let (az, el) = (40f32.to_radians(), 30f32.to_radians());
                let forward = [-az.sin() * el.cos(), az.cos() * el.cos(), -el.sin()];
                let right = normalize(cross(forward, [0.0, 0.0, 1.0])).unwrap_or([1.0, 0.0, 0.0]);
                (right, cross(right, forward), forward)
            }
        };
        let to_stage = |v: V3| match up {
            UpAxis::Z => v,
            UpAxis::Y => [v[0], v[2], -v[1]],
        };
        Camera { right: to_stage(right), up: to_stage(screen_up), forward: to_stage(forward) }
    }

    /// (screen x, screen y, depth) of a world point, in world units.
    pub fn project(&self, p: V3) -> V3 {
        [dot(p, self.right), dot(p, self.up), dot(p, self.forward)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: V3, b: V3) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() < 1e-6)
    }

    #[test]
    fn every_basis_is_right_handed_and_orthonormal() {
        for view in [View::Front, View::Side, View::Top, View::ThreeQuarter] {
            for up in [UpAxis::Y, UpAxis::Z] {
                let c = Camera::new(view, up);
                for v in [c.right, c.up, c.forward] {
                    assert!((dot(v, v) - 1.0).abs() < 1e-6, "{view:?} {up:?}");
                }
                assert!(dot(c.right, c.up).abs() < 1e-6 && dot(c.up, c.forward).abs() < 1e-6);
                // right × up points back at the camera (toward the viewer).
                assert!(close(cross(c.right, c.up), [-c.forward[0], -c.forward[1], -c.forward[2]]), "{view:?} {up:?}");
            }
        }
    }

    #[test]
    fn the_stage_up_axis_is_screen_up_in_side_views() {
        for view in [View::Front, View::Side] {
            assert!(close(Camera::new(view, UpAxis::Z).up, [0.0, 0.0, 1.0]));
            assert!(close(Camera::new(view, UpAxis::Y).up, [0.0, 1.0, 0.0]));
        }
        // The 3/4 view looks down a little: up stays mostly up.
        assert!(Camera::new(View::ThreeQuarter, UpAxis::Y).up[1] > 0.8);
        // The top view looks down the up axis.
        assert!(close(Camera::new(View::Top, UpAxis::Y).forward, [0.0, -1.0, 0.0]));
    }
}
