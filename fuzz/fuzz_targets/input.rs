//! The fuzz targets' reader of their input bytes, shared by the targets that build values
//! from it (`mod input;` in each).

// Each target reads with only some of these methods.
#![allow(dead_code)]

/// Reads the fuzzer's bytes; zeros once they run out.
pub struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data, at: 0 }
    }

    /// The next byte, or zero past the end.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A number below `n` (zero when `n` is zero), from the next two bytes.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(u16::from_le_bytes([self.byte(), self.byte()])) % n
        }
    }

    /// A word from the next eight bytes, little-endian.
    pub fn u64(&mut self) -> u64 {
        let mut word = [0u8; 8];
        word.iter_mut().for_each(|b| *b = self.byte());
        u64::from_le_bytes(word)
    }

    /// The bytes not read yet (empty past the end).
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.at.min(self.data.len())..]
    }

    /// Whether every byte has been read.
    pub fn exhausted(&self) -> bool {
        self.at >= self.data.len()
    }
}
