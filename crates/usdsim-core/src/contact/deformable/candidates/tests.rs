//! Tests of the candidate lists: kept, repaired and short-window lists find the contacts
//! of a search from scratch and of every pair.

use crate::contact::deformable::fixtures::{cloth_sheet, same};
use crate::contact::deformable::path::WINDOW;
use crate::contact::deformable::surfaces::{SelfContact, Surfaces};
use crate::contact::filter_table::FilterTable;
use crate::scene::{Body, Scene};
use glam::Vec3;

fn sheet(name: &str, origin: Vec3) -> Body {
    cloth_sheet(name, origin, 0.1, 9)
}

/// Positions of two 9 × 9 sheets at substep `k` (1 ms apart): the upper one, 2 cm
/// above, slides across the lower one and comes down on it at 0.25 m/s until it is 3 mm
/// away, so pairs come within reach in the middle of a window. After substep 80 every
/// vertex also jitters by up to `jitter` (what the predicted paths cannot follow). Both
/// sheets also move together at `drift` m/s, falling (what the lists' moving frame
/// takes out).
fn pose(rest: &[Vec3], k: usize, jitter: f32, drift: Vec3) -> Vec<Vec3> {
    let t = k as f32 * 1e-3;
    rest.iter()
        .enumerate()
        .map(|(i, &p)| {
            let mut q = p + drift * t - Vec3::Z * (4.9 * t * t);
            if i >= 81 {
                q += Vec3::new(0.3 * t, 0.05 * t, -(0.25 * t).min(0.017));
            }
            if k > 80 {
                let h = ((i * 7919 + k * 104_729) % 1000) as f32 / 1000.0 - 0.5;
                q += Vec3::new(h, -h, 0.5 * h) * jitter;
            }
            q
        })
        .collect()
}

#[test]
fn kept_lists_find_what_a_search_from_scratch_finds() {
    // Still, and carried off together fast (the lists' boxes are taken in a frame
    // moving with the mean motion: an error there loses pairs at speed).
    for drift in [Vec3::ZERO, Vec3::new(3.0, -2.0, 1.0)] {
        kept_lists_hold(drift);
    }
}

/// Two 9 × 9 sheets, the upper 2 cm above the lower: their surfaces twice (for kept
/// lists and for lists built afresh every substep), the filters and the rest positions.
fn two_sheets() -> (Surfaces, Surfaces, FilterTable, Vec<Vec3>) {
    let scene = Scene {
        bodies: vec![sheet("lower", Vec3::ZERO), sheet("upper", Vec3::new(0.0, 0.0, 0.02))],
        ..Default::default()
    };
    let ranges = [0..81, 81..162];
    let self_contact = SelfContact { surfaces: Some(true), volumes: false };
    let (kept, filter) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    let (fresh, _) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    let rest = scene.bodies.iter().flat_map(|b| b.positions.clone()).collect();
    (kept, fresh, filter, rest)
}

/// Detects substep (`x_prev`, `x`) with the kept lists and with lists built afresh,
/// asserts that both find the contacts of every pair, and returns whether any touch.
fn same_contacts(
    kept: &mut Surfaces,
    fresh: &mut Surfaces,
    filter: &FilterTable,
    x_prev: &[Vec3],
    x: &[Vec3],
    what: &str,
) -> bool {
    let w = vec![1.0; x.len()];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    kept.detect(x, x_prev, &w, filter, &mut a);
    fresh.candidates.invalidate();
    fresh.detect(x, x_prev, &w, filter, &mut b);
    assert!(same(&a, &b), "{what}: {} kept contacts, {} from scratch", a.len(), b.len());
    let all = kept.every_contact(filter, x, x_prev, &w);
    assert!(same(&a, &all), "{what}: {} kept contacts, {} of all pairs", a.len(), all.len());
    !a.is_empty()
}

/// A few vertices that jump by several skins inside a window (three of the upper
/// sheet's, 2 mm up and back every 7 substeps) are repaired, not rebuilt, and the
/// repaired lists still find every contact.
#[test]
fn a_few_strays_are_repaired() {
    let (mut kept, mut fresh, filter, rest) = two_sheets();
    let kicked = |k: usize| {
        let mut p = pose(&rest, k, 0.0, Vec3::ZERO);
        for i in [120, 121, 130] {
            p[i].z += 0.002 * ((k / 7) % 2) as f32;
        }
        p
    };
    let mut touching = 0;
    for k in 0..80 {
        let (x_prev, x) = (kicked(k), kicked(k + 1));
        touching += usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &format!("substep {k}")));
    }
    assert!(touching > 20, "the sheets touch in {touching} substeps only: the test shows nothing");
    let (builds, repairs) = (kept.candidates.builds, kept.candidates.repairs);
    assert!(repairs >= 5, "{repairs} repairs, {builds} builds");
    // About a build per full window (a shorter window follows an early rebuild).
    assert!(builds <= 80 / WINDOW as u64 + 2, "{builds} builds in 80 substeps ({repairs} repairs)");
}

fn kept_lists_hold(drift: Vec3) {
    let (mut kept, mut fresh, filter, rest) = two_sheets();
    let (mut touching, mut steps, mut smooth_builds) = (0, 0, 0);
    for k in 0..160 {
        if k == 80 {
            smooth_builds = kept.candidates.builds;
        }
        let (x_prev, x) = (pose(&rest, k, 0.003, drift), pose(&rest, k + 1, 0.003, drift));
        let what = format!("{drift}, substep {k}");
        touching += usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &what));
        steps += 1;
    }
    assert!(touching > 80, "the sheets touch in {touching} substeps only: the test shows nothing");
    assert_eq!(fresh.candidates.builds, steps);
    // Smooth motion is served by kept lists (about a build per full window, and a
    // shorter window or two after the upper sheet stops); the jitter, several skins
    // wide, forces a build every substep.
    assert!(smooth_builds <= 80 / WINDOW as u64 + 2, "{smooth_builds} builds in 80 smooth substeps");
    assert_eq!(kept.candidates.builds - smooth_builds, 80, "the jitter did not force every rebuild");
}

/// Lists rebuilt early are followed by shorter windows (two or three substeps), and
/// those windows hold every pair too: a sheet finer than its thickness (so that its
/// self-contact radius is capped) folds onto itself while it swings, and bursts of
/// jitter every few substeps force early rebuilds; every substep's contacts equal
/// a search's from scratch and every pair's.
#[test]
fn short_windows_keep_every_pair() {
    let body = cloth_sheet("sheet", Vec3::ZERO, 0.3, 30);
    let n = body.positions.len();
    let scene = Scene { bodies: vec![body], ..Default::default() };
    let ranges = [std::ops::Range { start: 0, end: n }];
    let self_contact = SelfContact { surfaces: Some(true), volumes: false };
    let (mut kept, filter) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    let (mut fresh, _) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    assert!(kept.self_radius[0] < kept.radius[0], "the sheet's self-contact radius is not capped");
    let rest = scene.bodies[0].positions.clone();
    // Folds about the line x = 0.14 into a tightening arc (radius 12 mm down to
    // 1.2 mm) while the whole sheet rocks about the x axis.
    let pose = |k: usize| -> Vec<Vec3> {
        let t = ((k as f32 - 20.0).max(0.0) / 100.0).min(1.0);
        let (fold, radius, hinge) = (std::f32::consts::PI * t, 0.012 - 0.0108 * t, 0.14);
        let swing = glam::Quat::from_rotation_x(0.3 * (k as f32 * 0.02).sin());
        (rest.iter().enumerate())
            .map(|(i, &p)| {
                let u = p.x - hinge;
                let mut q = if u <= 0.0 {
                    p
                } else {
                    let along = u.min(radius * fold);
                    let phi = along / radius;
                    let on_arc = Vec3::new(hinge + radius * phi.sin(), p.y, radius * (1.0 - phi.cos()));
                    on_arc + Vec3::new(phi.cos(), 0.0, phi.sin()) * (u - along)
                };
                q = swing * q;
                if k % 6 == 3 {
                    let h = ((i * 7919 + k * 104_729) % 1000) as f32 / 1000.0 - 0.5;
                    q += Vec3::new(h, -h, 0.5 * h) * 0.0004;
                }
                q
            })
            .collect()
    };
    let (mut touching, mut short_served) = (0, 0);
    for k in 0..160 {
        let (x_prev, x) = (pose(k), pose(k + 1));
        touching += usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &format!("substep {k}")));
        let c = &kept.candidates;
        short_served += usize::from(c.window < WINDOW && c.served > 1);
    }
    assert!(touching > 40, "the sheet touches itself in {touching} substeps only: the test shows nothing");
    assert!(short_served > 10, "short windows served past their build {short_served} times only");
}

/// The window's bound holds for fast relative motion: the upper of two sheets comes
/// down on the lower at 2 mm a substep (its paths exact, so lists last their whole
/// windows), and every substep's contacts equal a search's from scratch and every
/// pair's. A bound that counted fewer substeps of relative motion than a list
/// serves misses the pairs that close in late in its window (checked: bounds and
/// boxes for two substeps on lists of four fail here).
#[test]
fn fast_approach_is_held_by_the_window_bound() {
    let (mut kept, mut fresh, filter, rest) = two_sheets();
    let falling = |k: usize| -> Vec<Vec3> {
        // Starting 21.5 mm apart, so that the second list is built 13.5 mm apart,
        // beyond what one substep's motion brings within reach, and holds pairs that
        // reach it in its last substep.
        let drop = Vec3::Z * (0.002 * k as f32 - 0.0015);
        rest.iter().enumerate().map(|(i, &p)| if i < 81 { p } else { p - drop }).collect()
    };
    let mut touching = 0;
    // Down to 3.5 mm apart: the sheets come within reach in the last substeps.
    for k in 0..9 {
        let (x_prev, x) = (falling(k), falling(k + 1));
        touching += usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &format!("substep {k}")));
    }
    assert!(touching >= 2, "the sheets touch in {touching} substeps only: the test shows nothing");
    let builds = kept.candidates.builds;
    assert!(builds <= 3, "{builds} builds in 9 substeps: the lists did not last their windows");
}
