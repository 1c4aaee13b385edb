//! Pieces of a pattern's source that regress must be given spelled otherwise (both readers of
//! the source, Annex B and `u`/`v`, collect them).

/// Respellings of a source in UTF-16 code units, in source order.
#[derive(Debug, Default)]
pub struct Respelled(Vec<(usize, usize, &'static str)>);

impl Respelled {
    /// Units `start..end` of the source become `with`; pushed in source order, never
    /// overlapping.
    pub fn push(&mut self, (start, end, with): (usize, usize, &'static str)) {
        self.0.push((start, end, with));
    }

    /// `units` with every respelling applied, or `None` when there is none.
    pub fn apply(&self, units: &[u16]) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(units.len() + 4 * self.0.len());
        let mut from = 0;
        for &(start, end, with) in &self.0 {
            out.extend_from_slice(&units[from..start]);
            out.extend(with.encode_utf16());
            from = end;
        }
        out.extend_from_slice(&units[from..]);
        Some(String::from_utf16_lossy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_each_respelling_in_order_and_nothing_when_there_is_none() {
        let units: Vec<u16> = "a\\8b{".encode_utf16().collect();
        let mut respelled = Respelled::default();
        assert_eq!(respelled.apply(&units), None);
        respelled.push((1, 2, "\\\\"));
        respelled.push((4, 5, "\\{"));
        assert_eq!(respelled.apply(&units).as_deref(), Some("a\\\\8b\\{"));
    }
}
