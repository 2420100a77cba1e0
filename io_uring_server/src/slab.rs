//! A slab of connection slots with generation counters, so that a slot can be reused
//! while a stale completion for its previous occupant is still recognisable.

use crate::token::{ConnId, next_generation};

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
    pub fn insert(&mut self, value: T) -> ConnId {
        self.len += 1;
        if let Some(slot) = self.free.pop() {
            let entry = &mut self.entries[slot as usize];
            entry.value = Some(value);
            return ConnId::new(slot, entry.generation);
        }
        self.entries.push(Entry {
            generation: 0,
            value: Some(value),
        });
        ConnId::new((self.entries.len() - 1) as u32, 0)
    }

    /// The value of `id`, if its slot is still occupied by that generation.
    pub fn get_mut(&mut self, id: ConnId) -> Option<&mut T> {
        let entry = self.entries.get_mut(id.slot as usize)?;
        (entry.generation == id.generation).then_some(entry.value.as_mut()?)
    }

    /// Frees the slot of `id` if that generation still occupies it; the next occupant
    /// gets a new generation.
    pub fn remove(&mut self, id: ConnId) -> Option<T> {
        let slot = id.slot;
        let entry = self.entries.get_mut(slot as usize)?;
        if entry.generation != id.generation {
            return None;
        }
        let value = entry.value.take()?;
        entry.generation = next_generation(entry.generation);
        self.free.push(slot);
        self.len -= 1;
        Some(value)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Every occupant.
    pub fn occupied(&self) -> Vec<ConnId> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.value.is_some())
            .map(|(slot, e)| ConnId::new(slot as u32, e.generation))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_slot_rejects_the_old_generation() {
        let mut slab = Slab::new();
        let old = slab.insert("first");
        assert_eq!(slab.remove(old), Some("first"));
        let new = slab.insert("second");
        assert_eq!(new.slot, old.slot);
        assert_ne!(old.generation, new.generation);
        assert_eq!(slab.get_mut(old), None);
        assert_eq!(slab.remove(old), None, "a stale id frees nothing");
        assert_eq!(slab.get_mut(new), Some(&mut "second"));
        assert_eq!((slab.len(), slab.occupied()), (1, vec![new]));
        assert_eq!(slab.remove(new), Some("second"));
        assert_eq!(slab.remove(new), None);
    }
}
