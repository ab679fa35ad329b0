//! Fields read by IBM name through the layout tables (never by offset), so a
//! change of a layout in `ztwin-monitor` flows through to the kernel.

use ztwin_monitor::layout::{decode_field_ref, FieldDef, RecordLayout, ValueRef};

/// The field definitions of a list of IBM names in one layout, resolved once
/// per layout (a record family can meet layouts of several releases).
pub struct Resolver {
    names: &'static [&'static str],
    group: &'static [&'static str],
    cache: Vec<(usize, Vec<Option<&'static FieldDef>>)>,
}

impl Resolver {
    pub const fn new(names: &'static [&'static str], group: &'static [&'static str]) -> Self {
        Resolver {
            names,
            group,
            cache: Vec::new(),
        }
    }

    /// Definitions of the names (fixed part first, then group entry fields)
    /// in `layout`; `None` where the layout has no such field.
    pub fn defs(&mut self, layout: &'static RecordLayout) -> &[Option<&'static FieldDef>] {
        let addr = layout as *const RecordLayout as usize;
        let pos = match self.cache.iter().position(|(a, _)| *a == addr) {
            Some(p) => p,
            None => {
                let mut v: Vec<Option<&'static FieldDef>> =
                    self.names.iter().map(|n| layout.field(n)).collect();
                let gfields = layout.group.as_ref().map(|g| g.fields).unwrap_or(&[]);
                v.extend(
                    self.group
                        .iter()
                        .map(|n| gfields.iter().find(|f| f.name == *n)),
                );
                self.cache.push((addr, v));
                self.cache.len() - 1
            }
        };
        &self.cache[pos].1
    }
}

/// A numeric field as an integer (`None` when absent or not numeric; a TOD
/// is its raw value).
#[inline]
pub fn num(rec: &[u8], f: Option<&FieldDef>) -> Option<i128> {
    match decode_field_ref(rec, f?)? {
        ValueRef::U(x) | ValueRef::Tod(x) | ValueRef::Dur(x) => Some(x as i128),
        ValueRef::I(x) => Some(x as i128),
        _ => None,
    }
}

/// A character field as text without surrounding blanks; `None` when absent
/// or blank (Python's `_text`).
pub fn text(rec: &[u8], f: Option<&FieldDef>) -> Option<String> {
    match decode_field_ref(rec, f?)? {
        ValueRef::Text(t) => {
            let s = t.decode();
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_string())
        }
        _ => None,
    }
}

/// A bit-string field as upper-case hex text (as the Python records give it).
pub fn bits_hex(rec: &[u8], f: Option<&FieldDef>) -> Option<String> {
    match decode_field_ref(rec, f?)? {
        ValueRef::Bits(b) => Some(b.iter().map(|x| format!("{x:02X}")).collect()),
        _ => None,
    }
}

/// A bit-string field as an integer (big-endian), `None` when absent or empty.
pub fn bits_int(rec: &[u8], f: Option<&FieldDef>) -> Option<i128> {
    match decode_field_ref(rec, f?)? {
        ValueRef::Bits(b) if !b.is_empty() && b.len() <= 8 => {
            Some(b.iter().fold(0i128, |a, &x| (a << 8) | x as i128))
        }
        _ => None,
    }
}
