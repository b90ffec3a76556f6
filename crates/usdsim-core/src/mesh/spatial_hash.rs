//! A uniform-grid spatial hash of axis-aligned boxes for the deformable contact search
//! (Teschner et al. 2003, "Optimized Spatial Hashing for Collision Detection of
//! Deformable Objects").
//!
//! Each item (a triangle's box swept over the substep) is entered in every grid cell its
//! box overlaps; cells map to a table of buckets by a hash of their integer coordinates.
//! The table is built by a counting sort, so every bucket lists its items in ascending
//! order and the same input always gives the same table, whatever the thread count.
//! Queries may report an item more than once (several cells, hash collisions): callers
//! deduplicate. Buffers are kept between builds, so a rebuild does not allocate
//! once the table has reached its size.

use glam::{IVec3, Vec3};

/// Cells one item may cover before it is entered in only its first cells' worth: a
/// guard against a diverging vertex flooding the table (such an item is still found
/// through the overflow list, which every query scans).
const MAX_CELLS_PER_ITEM: i64 = 512;

/// The hash table of boxes.
#[derive(Clone, Debug, Default)]
pub struct SpatialHash {
    cell: f32,
    inv_cell: f32,
    /// `start[b]..start[b + 1]` indexes `items` for bucket `b`.
    start: Vec<u32>,
    items: Vec<u32>,
    /// (bucket, item) entries of the current build, reused.
    entries: Vec<(u32, u32)>,
    /// Items whose boxes cover too many cells: tested by every query.
    overflow: Vec<u32>,
}

fn hash(c: IVec3, buckets: usize) -> u32 {
    // Teschner et al.'s primes.
    let h = (c.x.wrapping_mul(73_856_093)) ^ (c.y.wrapping_mul(19_349_663)) ^ (c.z.wrapping_mul(83_492_791));
    (h as u32) & (buckets as u32 - 1)
}

impl SpatialHash {
    /// Rebuilds the table with cells of edge `cell` from the items' boxes
    /// (`boxes[i] = (min, max)`).
    pub fn build(&mut self, cell: f32, boxes: &[(Vec3, Vec3)]) {
        self.cell = cell.max(1e-12);
        self.inv_cell = 1.0 / self.cell;
        self.entries.clear();
        self.overflow.clear();
        for (i, &(lo, hi)) in boxes.iter().enumerate() {
            let (a, b) = (self.coord(lo), self.coord(hi));
            let d = (b - a + IVec3::ONE).as_i64vec3();
            if !(lo.is_finite() && hi.is_finite()) || d.x * d.y * d.z > MAX_CELLS_PER_ITEM {
                self.overflow.push(i as u32);
                continue;
            }
            for z in a.z..=b.z {
                for y in a.y..=b.y {
                    for x in a.x..=b.x {
                        // Hashed to 2³¹ buckets now, masked to the table size below.
                        self.entries.push((hash(IVec3::new(x, y, z), 1 << 31), i as u32));
                    }
                }
            }
        }
        let buckets = (2 * self.entries.len()).next_power_of_two().max(64);
        self.start.clear();
        self.start.resize(buckets + 1, 0);
        for e in &mut self.entries {
            e.0 &= buckets as u32 - 1;
            self.start[e.0 as usize + 1] += 1;
        }
        for b in 0..buckets {
            self.start[b + 1] += self.start[b];
        }
        self.items.clear();
        self.items.resize(self.entries.len(), 0);
        // Counting sort: entries come in item order, so each bucket stays ascending.
        let mut fill: Vec<u32> = self.start[..buckets].to_vec();
        for &(b, i) in &self.entries {
            let k = fill[b as usize] as usize;
            self.items[k] = i;
            fill[b as usize] += 1;
        }
    }

    fn coord(&self, p: Vec3) -> IVec3 {
        // Clamp so far-away (or non-finite) points cannot overflow the integer cast.
        (p * self.inv_cell).floor().clamp(Vec3::splat(-1e9), Vec3::splat(1e9)).as_ivec3()
    }

    /// Calls `f` with every item whose cells overlap the box `(lo, hi)` (possibly more
    /// than once, possibly items whose boxes do not overlap it).
    pub fn query(&self, lo: Vec3, hi: Vec3, mut f: impl FnMut(u32)) {
        if self.start.len() < 2 {
            return;
        }
        for &i in &self.overflow {
            f(i);
        }
        let in_cells = self.for_each_bucket(lo, hi, |s, e| {
            for &i in &self.items[s..e] {
                f(i);
            }
        });
        if !in_cells {
            // A huge query box (a vertex flying away): scan everything rather than loop
            // over millions of cells.
            for &i in &self.items {
                f(i);
            }
        }
    }
}

impl SpatialHash {
    /// Calls `f(start, end)` with the range of `items` of every bucket that a cell of the
    /// box `(lo, hi)` maps to (a bucket more than once when several cells map to it).
    /// Returns false, calling nothing, when the box covers too many cells to visit.
    fn for_each_bucket(&self, lo: Vec3, hi: Vec3, mut f: impl FnMut(usize, usize)) -> bool {
        let buckets = self.start.len() - 1;
        let (a, b) = (self.coord(lo), self.coord(hi));
        let d = (b - a + IVec3::ONE).as_i64vec3();
        if d.x * d.y * d.z > MAX_CELLS_PER_ITEM * 8 {
            return false;
        }
        for z in a.z..=b.z {
            for y in a.y..=b.y {
                for x in a.x..=b.x {
                    let h = hash(IVec3::new(x, y, z), 1 << 31) as usize & (buckets - 1);
                    f(self.start[h] as usize, self.start[h + 1] as usize);
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_overlapping_box() {
        let boxes: Vec<(Vec3, Vec3)> = (0..50)
            .map(|i| {
                let c = Vec3::new((i % 7) as f32 * 0.3, (i / 7) as f32 * 0.25, (i % 3) as f32 * 0.1);
                (c, c + Vec3::splat(0.2 + (i % 4) as f32 * 0.1))
            })
            .collect();
        let mut h = SpatialHash::default();
        h.build(0.25, &boxes);
        for (q, &(lo, hi)) in boxes.iter().enumerate() {
            let mut found = vec![];
            h.query(lo, hi, |i| found.push(i));
            found.sort();
            found.dedup();
            for (i, &(l2, h2)) in boxes.iter().enumerate() {
                let overlap = lo.cmple(h2).all() && l2.cmple(hi).all();
                if overlap {
                    assert!(found.contains(&(i as u32)), "box {q} misses {i}");
                }
            }
        }
    }
}
