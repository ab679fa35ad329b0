//! Fields read by IBM name through the layout tables (never by offset), so a
//! change of a layout in `ztwin-monitor` flows through to the kernel.

use crate::delta::{Plan, Rule, Rules};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use ztwin_monitor::layout::{decode_field_ref, FieldDef, FieldType, RecordLayout, ValueRef};

/// Field definitions of a name list in one layout, their delta rules and
/// their read plan.
pub type Defs = (
    &'static [Option<&'static FieldDef>],
    Rules<'static>,
    &'static Plan,
);

/// The field definitions of a list of IBM names in one layout, resolved once
/// per layout (a record family can meet layouts of several releases).
pub struct Resolver {
    names: &'static [&'static str],
    group: &'static [&'static str],
    /// A field that counts down (SYTPRP_PFXPRBTM).
    down: Option<&'static str>,
    /// Per layout address: its definitions and rules, resolved once and kept
    /// for the life of the process (one small list per layout and family).
    cache: Vec<(usize, &'static Defs)>,
}

impl Resolver {
    pub const fn new(names: &'static [&'static str], group: &'static [&'static str]) -> Self {
        Resolver {
            names,
            group,
            down: None,
            cache: Vec::new(),
        }
    }

    /// The same, with a field that counts down.
    pub const fn with_down(mut self, down: &'static str) -> Self {
        self.down = Some(down);
        self
    }

    /// Definitions of the names (fixed part first, then group entry fields)
    /// in `layout`; `None` where the layout has no such field.
    #[inline]
    pub fn defs(&mut self, layout: &'static RecordLayout) -> &'static [Option<&'static FieldDef>] {
        self.get_ref(layout).0
    }

    /// [`Resolver::defs`], the delta rule of each field (wrap by its width)
    /// and their read plan ([`crate::delta::Sample::read_plan`]).
    #[inline]
    pub fn get(&mut self, layout: &'static RecordLayout) -> Defs {
        *self.get_ref(layout)
    }

    /// [`Resolver::get`] by reference (the interned definitions, not a copy).
    #[inline]
    pub fn get_ref(&mut self, layout: &'static RecordLayout) -> &'static Defs {
        let addr = layout as *const RecordLayout as usize;
        if let Some((_, d)) = self.cache.iter().find(|(a, _)| *a == addr) {
            return d;
        }
        self.resolve(layout)
    }

    #[cold]
    fn resolve(&mut self, layout: &'static RecordLayout) -> &'static Defs {
        let addr = layout as *const RecordLayout as usize;
        let key = (
            self.names.as_ptr() as usize,
            self.names.len(),
            self.group.as_ptr() as usize,
            self.group.len(),
            self.down,
            addr,
        );
        // Process-wide: a kernel per file must not leak a new copy of the
        // same definitions each time (a long-lived process reads many files;
        // the fuzzer runs millions). Name lists and layouts are static, so
        // the table is bounded by their combinations.
        let mut table = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        let d: &'static Defs = table.entry(key).or_insert_with(|| {
            Box::leak(Box::new(Self::build(
                self.names, self.group, self.down, layout,
            )))
        });
        drop(table);
        self.cache.push((addr, d));
        d
    }

    fn build(
        names: &'static [&'static str],
        group: &'static [&'static str],
        down: Option<&'static str>,
        layout: &'static RecordLayout,
    ) -> Defs {
        let mut v: Vec<Option<&'static FieldDef>> = names.iter().map(|n| layout.field(n)).collect();
        let gfields = layout.group.as_ref().map(|g| g.fields).unwrap_or(&[]);
        v.extend(group.iter().map(|n| gfields.iter().find(|f| f.name == *n)));
        let rules: Vec<Rule> = v
            .iter()
            .map(|f| Rule::of(*f, f.is_some_and(|f| Some(f.name) == down)))
            .collect();
        let plan = Plan::of(&v);
        (
            Box::leak(v.into_boxed_slice()),
            Rules::new(Box::leak(rules.into_boxed_slice())),
            Box::leak(Box::new(plan)),
        )
    }
}

/// (name list, its length, group list, its length, down field, layout) ->
/// definitions: each leaked once per process.
type InternKey = (usize, usize, usize, usize, Option<&'static str>, usize);

static INTERNED: LazyLock<Mutex<HashMap<InternKey, &'static Defs>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A numeric field as an integer (`None` when absent or not numeric; a TOD
/// is its raw value): the big-endian integer taken straight by the field's
/// type ([`crate::delta::stored`], the kernel's hottest read), what
/// `decode_field_ref` gives for a numeric field (a test checks they agree on
/// every layout's fields).
#[inline(always)]
pub fn num(rec: &[u8], f: Option<&FieldDef>) -> Option<i128> {
    let f = f?;
    let v = crate::delta::stored(rec, Some(f))?;
    Some(match f.ty {
        FieldType::U8 | FieldType::Tod | FieldType::Dur => crate::delta::unbias(v) as i128,
        _ => v as i128,
    })
}

/// The raw bytes of a character or bit-string field (a character field
/// without trailing blanks and NULs); `None` when absent.
#[inline]
pub fn raw_bytes<'a>(rec: &'a [u8], f: Option<&FieldDef>) -> Option<&'a [u8]> {
    match decode_field_ref(rec, f?)? {
        ValueRef::Text(t) => Some(t.bytes()),
        ValueRef::Bits(b) => Some(b),
        _ => None,
    }
}

/// The bytes of a character field (without trailing blanks and NULs);
/// `None` when absent or not a character field.
#[inline]
pub fn text_bytes<'a>(rec: &'a [u8], f: Option<&FieldDef>) -> Option<&'a [u8]> {
    match decode_field_ref(rec, f?)? {
        ValueRef::Text(t) => Some(t.bytes()),
        _ => None,
    }
}

/// The bytes of a bit-string field; `None` when absent or not a bit string.
#[inline]
pub fn bit_bytes<'a>(rec: &'a [u8], f: Option<&FieldDef>) -> Option<&'a [u8]> {
    match decode_field_ref(rec, f?)? {
        ValueRef::Bits(b) => Some(b),
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

#[cfg(test)]
mod tests {
    use super::*;
    use ztwin_monitor::layout::by_name;

    static NAMES: &[&str] = &["SYTPRP_PFXCPUAD", "SYTPRP_PFXUTIME"];

    /// A new resolver per kernel (per file) gets the definitions interned by
    /// the first: nothing is leaked again (a process reads many files).
    /// `num` reads what the monitor's decoder gives for every field of every
    /// layout, in whole records and in records cut short at each field.
    #[test]
    fn num_agrees_with_the_decoder() {
        use ztwin_monitor::layout::LAYOUTS;
        let mut rec = vec![0u8; 4096];
        for (i, b) in rec.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(151).wrapping_add(0x80);
        }
        let mut n = 0;
        for l in LAYOUTS.iter() {
            for f in l.fields {
                for cut in [rec.len(), f.offset as usize + 1, f.offset as usize] {
                    let r = &rec[..cut.min(rec.len())];
                    let want = match decode_field_ref(r, f) {
                        Some(ValueRef::U(x) | ValueRef::Tod(x) | ValueRef::Dur(x)) => {
                            Some(x as i128)
                        }
                        Some(ValueRef::I(x)) => Some(x as i128),
                        _ => None,
                    };
                    assert_eq!(num(r, Some(f)), want, "{} {}", l.name, f.name);
                    n += 1;
                }
            }
        }
        assert!(n > 1000, "{n}");
        assert_eq!(num(&rec, None), None);
    }

    #[test]
    fn definitions_are_interned_across_resolvers() {
        let l = by_name("MRSYTPRP").unwrap();
        let first = Resolver::new(NAMES, &[]).defs(l).as_ptr();
        for _ in 0..1000 {
            assert_eq!(Resolver::new(NAMES, &[]).defs(l).as_ptr(), first);
        }
        // another down field is another definition set
        let down = Resolver::new(NAMES, &[]).with_down("SYTPRP_PFXUTIME");
        let mut down = down;
        assert_ne!(
            down.get(l).1.all.as_ptr(),
            Resolver::new(NAMES, &[]).get(l).1.all.as_ptr()
        );
        assert!(down.defs(l)[1].is_some());
    }
}
