//! Typed indices for the things a [`crate::Scene`] lists, so a body index cannot be
//! passed where a frame or rigid-body index is meant: every index that crosses the
//! crate's API (scene cross-references, [`crate::Solver`]'s methods) is one of these.

use std::fmt;

/// Declares one index newtype: `pub usize` inside (the position in the scene's list),
/// ordered, hashable, and displayed as "`{what} {index}`" in messages.
macro_rules! scene_id {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub usize);

        impl $name {
            /// The position in the scene's list.
            pub const fn index(self) -> usize {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($what, " {}"), self.0)
            }
        }
    };
}

scene_id!(
    /// A deformable body: index into [`crate::Scene::bodies`].
    BodyId,
    "body"
);
scene_id!(
    /// An attachment frame: index into [`crate::Scene::frames`].
    FrameId,
    "frame"
);
scene_id!(
    /// A rigid body: index into [`crate::Scene::rigid_bodies`].
    RigidId,
    "rigid body"
);
scene_id!(
    /// A static collider: index into [`crate::Scene::colliders`].
    ColliderId,
    "collider"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_what_they_index() {
        assert_eq!(BodyId(3).to_string(), "body 3");
        assert_eq!(RigidId(0).to_string(), "rigid body 0");
        assert_eq!(FrameId(2).index(), 2);
    }
}
