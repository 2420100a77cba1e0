//! A slab of connection slots with generation counters, so that a slot can be reused
//! while a stale completion for its previous occupant is still recognisable.

use crate::token::next_generation;

pub struct Slab<T> {
    entries: Vec<Entry<T>>,
    free: Vec<u32>,
    len: usize,
}

struct Entry<T> {
    generation: u32,
    value: Option<T>,
}

impl<T> Slab<T> {
    pub fn new() -> Slab<T> {
        Slab {
            entries: Vec::new(),
            free: Vec::new(),
            len: 0,
        }
    }

    /// Stores `value`; returns its slot and generation.
    pub fn insert(&mut self, value: T) -> (u32, u32) {
        self.len += 1;
        if let Some(slot) = self.free.pop() {
            let entry = &mut self.entries[slot as usize];
            entry.value = Some(value);
            return (slot, entry.generation);
        }
        self.entries.push(Entry {
            generation: 0,
            value: Some(value),
        });
        ((self.entries.len() - 1) as u32, 0)
    }

    /// The value in `slot` if it is still the occupant of `generation`.
    pub fn get_mut(&mut self, slot: u32, generation: u32) -> Option<&mut T> {
        let entry = self.entries.get_mut(slot as usize)?;
        (entry.generation == generation).then_some(entry.value.as_mut()?)
    }

    /// Frees `slot`; the next occupant gets a new generation.
    pub fn remove(&mut self, slot: u32) -> Option<T> {
        let entry = self.entries.get_mut(slot as usize)?;
        let value = entry.value.take()?;
        entry.generation = next_generation(entry.generation);
        self.free.push(slot);
        self.len -= 1;
        Some(value)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Slots and generations of every occupant.
    pub fn occupied(&self) -> Vec<(u32, u32)> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.value.is_some())
            .map(|(slot, e)| (slot as u32, e.generation))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_slot_rejects_the_old_generation() {
        let mut slab = Slab::new();
        let (slot, old) = slab.insert("first");
        assert_eq!(slab.remove(slot), Some("first"));
        let (again, new) = slab.insert("second");
        assert_eq!(again, slot);
        assert_ne!(old, new);
        assert_eq!(slab.get_mut(slot, old), None);
        assert_eq!(slab.get_mut(slot, new), Some(&mut "second"));
        assert_eq!((slab.len(), slab.occupied()), (1, vec![(slot, new)]));
        assert_eq!(slab.remove(slot), Some("second"));
        assert_eq!(slab.remove(slot), None);
    }
}
