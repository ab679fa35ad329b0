//! Layout packs: record layouts given in a TOML or JSON file, merged over the
//! built-in tables without rebuilding ztwin (`ztwin dump --layouts FILE`).
//!
//! A pack is a list of `record` entries. An entry names a record (IBM name,
//! e.g. `MRIODDEV`; `domain`, `record` and `kind` are needed only for a record
//! ztwin does not know) and optionally the first release it applies to
//! (`release`, default: every release), the record size in that release
//! (`size`), fields to drop (`remove`), whether its fields replace the built-in
//! map (`replace = true`) or are merged over it by name (the default), the
//! releases whose pages confirm it (`seen`, default: `release`), a citation
//! (`source`) and a repeating group (`group`). Each `field` has a `name`, an
//! `offset` from the start of the record (header included), a `type` (`U1`,
//! `U2`, `U4`, `U8`, `S2`, `S4`, `S8`, `TOD`, `DUR`, `CHAR(n)`, `BITS(n)`,
//! `VARTEXT(n)` with the U4 length at offset n) and a `confidence` (`IBM`,
//! `LNX`, `Z53` or `INF`, default `INF`).
//!
//! [`LayoutPack::parse`] checks everything, for every release the pack
//! touches: names, types, that every field lies inside the record and after
//! the 20-byte header, that no two fields overlap, that a group's offset and
//! length fields exist. An error names the file, the record and the field.
//! [`LayoutSet::install`] then builds the merged tables once for the process
//! (their memory is kept for the life of the process: a program installs a
//! pack once; the number of distinct packs per process is capped).

use super::{
    dense_slot, lookup, pick, Confidence, DenseLayouts, FieldDef, FieldType, GroupDef, RecordKind,
    RecordLayout, Release, LAYOUTS,
};
use crate::header::{FRAME, HEADER_LEN};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// A layout pack that failed to parse or check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackError {
    /// The file (or other origin) of the pack.
    pub origin: String,
    /// The record entry concerned (its name, or `record #n`).
    pub record: Option<String>,
    /// The field concerned.
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.origin)?;
        if let Some(r) = &self.record {
            write!(f, "record {r}: ")?;
        }
        if let Some(x) = &self.field {
            write!(f, "field {x}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for PackError {}

/// The parsed value tree shared by TOML and JSON input.
#[derive(Clone, Debug)]
enum V {
    Str(String),
    Int(i64),
    Bool(bool),
    Arr(Vec<V>),
    Obj(Vec<(String, V)>),
    Other(&'static str),
}

impl V {
    fn kind(&self) -> &'static str {
        match self {
            V::Str(_) => "a string",
            V::Int(_) => "an integer",
            V::Bool(_) => "a boolean",
            V::Arr(_) => "a list",
            V::Obj(_) => "a table",
            V::Other(k) => k,
        }
    }
}

fn from_toml(v: toml::Value) -> V {
    match v {
        toml::Value::String(s) => V::Str(s),
        toml::Value::Integer(i) => V::Int(i),
        toml::Value::Boolean(b) => V::Bool(b),
        toml::Value::Array(a) => V::Arr(a.into_iter().map(from_toml).collect()),
        toml::Value::Table(t) => V::Obj(t.into_iter().map(|(k, v)| (k, from_toml(v))).collect()),
        toml::Value::Float(_) => V::Other("a float"),
        toml::Value::Datetime(_) => V::Other("a date"),
    }
}

fn from_json(v: serde_json::Value) -> V {
    match v {
        serde_json::Value::String(s) => V::Str(s),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => V::Int(i),
            None => V::Other("a non-integer number"),
        },
        serde_json::Value::Bool(b) => V::Bool(b),
        serde_json::Value::Array(a) => V::Arr(a.into_iter().map(from_json).collect()),
        serde_json::Value::Object(o) => {
            V::Obj(o.into_iter().map(|(k, v)| (k, from_json(v))).collect())
        }
        serde_json::Value::Null => V::Other("null"),
    }
}

/// A field of a pack, as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackField {
    pub name: String,
    pub offset: u16,
    pub ty: FieldType,
    pub src: Confidence,
}

impl PackField {
    /// The field's offset, type and confidence as a [`FieldDef`] (the name is
    /// left empty: decoding does not use it).
    pub fn def(&self) -> FieldDef {
        FieldDef {
            name: "",
            offset: self.offset,
            ty: self.ty,
            src: self.src,
        }
    }
}

/// A repeating group of a pack record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackGroup {
    pub name: String,
    pub offset_field: String,
    pub len_field: String,
    pub entry_size: u16,
    pub fields: Vec<PackField>,
}

/// One `record` entry of a pack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackRecord {
    pub name: String,
    pub domain: u8,
    pub record: u16,
    pub kind: RecordKind,
    /// First release the entry applies to (`None`: every release).
    pub release: Option<Release>,
    pub size: Option<u16>,
    pub replace: bool,
    pub remove: Vec<String>,
    pub seen: Vec<Release>,
    pub source: String,
    pub fields: Vec<PackField>,
    pub group: Option<PackGroup>,
}

/// A parsed and checked layout pack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutPack {
    /// Where the pack came from (for messages).
    pub origin: String,
    pub records: Vec<PackRecord>,
}

/// Field types by the names a pack uses (case-insensitive).
fn parse_type(t: &str) -> Option<FieldType> {
    let u = t.trim().to_ascii_uppercase();
    let arg = |p: &str| -> Option<u16> {
        let inner = u.strip_prefix(p)?.strip_prefix('(')?.strip_suffix(')')?;
        inner.trim().parse::<u16>().ok()
    };
    Some(match u.as_str() {
        "U1" => FieldType::U1,
        "U2" => FieldType::U2,
        "U4" => FieldType::U4,
        "U8" => FieldType::U8,
        "S2" => FieldType::S2,
        "S4" => FieldType::S4,
        "S8" => FieldType::S8,
        "TOD" => FieldType::Tod,
        "DUR" => FieldType::Dur,
        _ if u.starts_with("CHAR") => FieldType::Char(arg("CHAR").filter(|&n| n > 0)?),
        _ if u.starts_with("BITS") => FieldType::Bits(arg("BITS").filter(|&n| n > 0)?),
        _ if u.starts_with("VARTEXT") => FieldType::VarText {
            len_at: arg("VARTEXT")?,
        },
        _ => return None,
    })
}

fn parse_confidence(t: &str) -> Option<Confidence> {
    Some(match t.trim().to_ascii_uppercase().as_str() {
        "IBM" => Confidence::Ibm,
        "LNX" => Confidence::Linux,
        "Z53" => Confidence::Z53,
        "INF" => Confidence::Inferred,
        _ => return None,
    })
}

fn parse_kind(t: &str) -> Option<RecordKind> {
    Some(match t.trim().to_ascii_lowercase().as_str() {
        "sample" => RecordKind::Sample,
        "event" => RecordKind::Event,
        "config" => RecordKind::Config,
        "control" => RecordKind::Control,
        _ => return None,
    })
}

/// Error builder for one place of a pack.
struct At<'a> {
    origin: &'a str,
    record: Option<String>,
    field: Option<String>,
}

impl At<'_> {
    fn err(&self, message: impl Into<String>) -> PackError {
        PackError {
            origin: self.origin.to_string(),
            record: self.record.clone(),
            field: self.field.clone(),
            message: message.into(),
        }
    }

    fn with_field(&self, f: &str) -> At<'_> {
        At {
            origin: self.origin,
            record: self.record.clone(),
            field: Some(f.to_string()),
        }
    }
}

/// The keys of a table, checked against the allowed ones.
fn table<'v>(
    v: &'v V,
    allowed: &[&str],
    at: &At<'_>,
    what: &str,
) -> Result<&'v [(String, V)], PackError> {
    let V::Obj(kv) = v else {
        return Err(at.err(format!("{what} must be a table, not {}", v.kind())));
    };
    for (k, _) in kv {
        if !allowed.contains(&k.as_str()) {
            return Err(at.err(format!(
                "unknown key {k:?} in {what} (known keys: {})",
                allowed.join(", ")
            )));
        }
    }
    Ok(kv)
}

fn get<'v>(kv: &'v [(String, V)], key: &str) -> Option<&'v V> {
    kv.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn get_str(kv: &[(String, V)], key: &str, at: &At<'_>) -> Result<Option<String>, PackError> {
    match get(kv, key) {
        None => Ok(None),
        Some(V::Str(s)) => Ok(Some(s.clone())),
        Some(v) => Err(at.err(format!("{key} must be a string, not {}", v.kind()))),
    }
}

fn get_int(kv: &[(String, V)], key: &str, max: i64, at: &At<'_>) -> Result<Option<i64>, PackError> {
    match get(kv, key) {
        None => Ok(None),
        Some(V::Int(i)) if (0..=max).contains(i) => Ok(Some(*i)),
        Some(V::Int(i)) => Err(at.err(format!("{key} {i} is outside 0..={max}"))),
        Some(v) => Err(at.err(format!("{key} must be an integer, not {}", v.kind()))),
    }
}

fn get_release(kv: &[(String, V)], key: &str, at: &At<'_>) -> Result<Option<Release>, PackError> {
    match get(kv, key) {
        None => Ok(None),
        Some(V::Str(s)) => s
            .parse::<Release>()
            .map(Some)
            .map_err(|e| at.err(format!("{key}: {e}"))),
        Some(v) => Err(at.err(format!(
            "{key} must be a string such as \"7.3\", not {}",
            v.kind()
        ))),
    }
}

fn list<'v>(v: Option<&'v V>, key: &str, at: &At<'_>) -> Result<&'v [V], PackError> {
    match v {
        None => Ok(&[]),
        Some(V::Arr(a)) => Ok(a),
        Some(v) => Err(at.err(format!("{key} must be a list, not {}", v.kind()))),
    }
}

/// Most records and fields a pack may hold.
const MAX_RECORDS: usize = 1024;
const MAX_FIELDS: usize = 1024;
/// Field names: letters, digits, `_`, `@`, `#`, `$`, at most this long.
const MAX_NAME: usize = 32;

fn check_name(name: &str, prefix: &str, at: &At<'_>) -> Result<(), PackError> {
    if name.is_empty()
        || name.len() > MAX_NAME
        || !name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b"_@#$".contains(&b))
    {
        return Err(at.err(format!(
            "{name:?} is not an IBM field name (upper-case letters, digits, _ @ # $; at most {MAX_NAME})"
        )));
    }
    if !name.starts_with(prefix) {
        return Err(at.err(format!("field names of this record start with {prefix}")));
    }
    Ok(())
}

fn parse_fields(items: &[V], prefix: &str, at: &At<'_>) -> Result<Vec<PackField>, PackError> {
    if items.len() > MAX_FIELDS {
        return Err(at.err(format!("more than {MAX_FIELDS} fields")));
    }
    let mut out: Vec<PackField> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let pos = At {
            origin: at.origin,
            record: at.record.clone(),
            field: Some(format!("#{}", i + 1)),
        };
        let kv = table(
            item,
            &["name", "offset", "type", "confidence"],
            &pos,
            "a field",
        )?;
        let name = get_str(kv, "name", &pos)?.ok_or_else(|| pos.err("a field needs a name"))?;
        let at_f = at.with_field(&name);
        check_name(&name, prefix, &at_f)?;
        if out.iter().any(|f| f.name == name) {
            return Err(at_f.err("given twice"));
        }
        let offset = get_int(kv, "offset", FRAME as i64 - 1, &at_f)?
            .ok_or_else(|| at_f.err("a field needs an offset"))? as u16;
        let t = get_str(kv, "type", &at_f)?.ok_or_else(|| at_f.err("a field needs a type"))?;
        let ty = parse_type(&t).ok_or_else(|| {
            at_f.err(format!(
                "unknown type {t:?} (U1 U2 U4 U8 S2 S4 S8 TOD DUR CHAR(n) BITS(n) VARTEXT(n))"
            ))
        })?;
        let src = match get_str(kv, "confidence", &at_f)? {
            None => Confidence::Inferred,
            Some(c) => parse_confidence(&c).ok_or_else(|| {
                at_f.err(format!("unknown confidence {c:?} (IBM, LNX, Z53 or INF)"))
            })?,
        };
        out.push(PackField {
            name,
            offset,
            ty,
            src,
        });
    }
    Ok(out)
}

impl LayoutPack {
    /// Parse and check a pack given as TOML or JSON text (JSON when the first
    /// non-blank character is `{`). `origin` names it in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<LayoutPack, PackError> {
        let top = At {
            origin,
            record: None,
            field: None,
        };
        let root = if text.trim_start().starts_with('{') {
            let v: serde_json::Value =
                serde_json::from_str(text).map_err(|e| top.err(format!("not valid JSON: {e}")))?;
            from_json(v)
        } else {
            let t: toml::Table = text.parse().map_err(|e: toml::de::Error| {
                top.err(format!("not valid TOML: {}", e.message()))
            })?;
            from_toml(toml::Value::Table(t))
        };
        let kv = table(&root, &["record"], &top, "the pack")?;
        let items = list(get(kv, "record"), "record", &top)?;
        if items.is_empty() {
            return Err(top.err("no [[record]] entries"));
        }
        if items.len() > MAX_RECORDS {
            return Err(top.err(format!("more than {MAX_RECORDS} records")));
        }
        let mut records = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            records.push(parse_record(item, i, origin)?);
        }
        let pack = LayoutPack {
            origin: origin.to_string(),
            records,
        };
        pack.check()?;
        Ok(pack)
    }

    /// Read and parse a pack file.
    pub fn load(path: &std::path::Path) -> Result<LayoutPack, PackError> {
        let origin = path.display().to_string();
        let fail = |message: String| PackError {
            origin: origin.clone(),
            record: None,
            field: None,
            message,
        };
        let bytes = std::fs::read(path).map_err(|e| {
            // The system's reason without Rust's " (os error N)".
            let text = e.to_string();
            let reason = text.split(" (os error").next().unwrap_or(&text);
            fail(format!("cannot read: {reason}"))
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            fail(format!(
                "not UTF-8 text (byte X'{:02X}' at offset {at}); a layout pack is TOML or JSON, which are UTF-8",
                e.as_bytes()[at]
            ))
        })?;
        LayoutPack::parse(&text, &origin)
    }

    /// The entry that applies to (domain, record) in `release`, if any.
    fn entry_for(&self, domain: u8, record: u16, release: Release) -> Option<&PackRecord> {
        self.records
            .iter()
            .filter(|r| (r.domain, r.record) == (domain, record))
            .filter(|r| r.release.is_none_or(|s| s <= release))
            .max_by_key(|r| r.release)
    }

    /// Every (domain, record) the pack changes.
    fn keys(&self) -> Vec<(u8, u16)> {
        let mut k: Vec<(u8, u16)> = self.records.iter().map(|r| (r.domain, r.record)).collect();
        k.sort_unstable();
        k.dedup();
        k
    }

    /// Merge and check every entry over the built-in layouts of every known
    /// release it applies to.
    fn check(&self) -> Result<(), PackError> {
        for (d, r) in self.keys() {
            for &rel in &Release::KNOWN {
                if let Some(e) = self.entry_for(d, r, rel) {
                    merge(&self.origin, e, lookup(d, r, rel))?;
                }
            }
            // An entry starting after 7.4 is checked against the newest layout.
            for e in self
                .records
                .iter()
                .filter(|e| (e.domain, e.record) == (d, r))
            {
                if let Some(rel) = e.release {
                    merge(&self.origin, e, lookup(d, r, rel))?;
                }
            }
        }
        Ok(())
    }
}

fn parse_record(item: &V, i: usize, origin: &str) -> Result<PackRecord, PackError> {
    let mut at = At {
        origin,
        record: Some(format!("#{}", i + 1)),
        field: None,
    };
    let kv = table(
        item,
        &[
            "name", "domain", "record", "kind", "release", "size", "replace", "remove", "seen",
            "source", "field", "group",
        ],
        &at,
        "a record entry",
    )?;
    let name = get_str(kv, "name", &at)?
        .ok_or_else(|| at.err("a record entry needs a name (e.g. MRIODDEV)"))?;
    at.record = Some(name.clone());
    if name.len() < 5
        || name.len() > 8
        || !name.starts_with("MR")
        || !name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        return Err(
            at.err("a record name is MR followed by the 6-character DSECT name (e.g. MRIODDEV)")
        );
    }
    let builtin = LAYOUTS.iter().find(|l| l.name == name);
    let domain = get_int(kv, "domain", 255, &at)?.map(|d| d as u8);
    let record = get_int(kv, "record", 65535, &at)?.map(|r| r as u16);
    let (domain, record) = match (builtin, domain, record) {
        (Some(l), d, r) => {
            if d.is_some_and(|d| d != l.domain) || r.is_some_and(|r| r != l.record) {
                return Err(at.err(format!(
                    "{name} is D{}R{}; domain/record say otherwise",
                    l.domain, l.record
                )));
            }
            (l.domain, l.record)
        }
        (None, Some(d), Some(r)) => {
            if let Some(l) = LAYOUTS.iter().find(|l| (l.domain, l.record) == (d, r)) {
                return Err(at.err(format!("D{d}R{r} is {}, not {name}", l.name)));
            }
            (d, r)
        }
        (None, _, _) => {
            return Err(at.err(format!(
                "{name} is not a record ztwin knows: give its domain and record numbers"
            )))
        }
    };
    let kind =
        match get_str(kv, "kind", &at)? {
            Some(k) => parse_kind(&k).ok_or_else(|| {
                at.err(format!(
                    "unknown kind {k:?} (sample, event, config, control)"
                ))
            })?,
            None => match builtin {
                Some(l) => l.kind,
                None => return Err(at.err(
                    "a record ztwin does not know needs a kind (sample, event, config, control)",
                )),
            },
        };
    let release = get_release(kv, "release", &at)?;
    let size = get_int(kv, "size", FRAME as i64, &at)?.map(|s| s as u16);
    if let Some(s) = size {
        if (s as usize) < HEADER_LEN {
            return Err(at.err(format!(
                "size {s} is shorter than the 20-byte record header"
            )));
        }
    }
    if builtin.is_none() && size.is_none() {
        return Err(at.err("a record ztwin does not know needs a size"));
    }
    let replace = match get(kv, "replace") {
        None => false,
        Some(V::Bool(b)) => *b,
        Some(v) => return Err(at.err(format!("replace must be true or false, not {}", v.kind()))),
    };
    let prefix = format!("{}_", &name[2..]);
    let mut remove = Vec::new();
    for v in list(get(kv, "remove"), "remove", &at)? {
        let V::Str(n) = v else {
            return Err(at.err(format!("remove lists field names, not {}", v.kind())));
        };
        if builtin.is_none_or(|_| versions_have(domain, record, n).is_none()) {
            return Err(at
                .with_field(n)
                .err("cannot be removed: no built-in field has that name"));
        }
        remove.push(n.clone());
    }
    let mut seen = Vec::new();
    for v in list(get(kv, "seen"), "seen", &at)? {
        let V::Str(s) = v else {
            return Err(at.err(format!(
                "seen lists releases such as \"7.3\", not {}",
                v.kind()
            )));
        };
        seen.push(
            s.parse::<Release>()
                .map_err(|e| at.err(format!("seen: {e}")))?,
        );
    }
    if seen.is_empty() {
        seen.extend(release);
    }
    let source = get_str(kv, "source", &at)?.unwrap_or_else(|| format!("layout pack {origin}"));
    let fields = parse_fields(list(get(kv, "field"), "field", &at)?, &prefix, &at)?;
    let group = match get(kv, "group") {
        None => None,
        Some(g) => {
            let gkv = table(
                g,
                &["name", "offset_field", "len_field", "entry_size", "field"],
                &at,
                "the group",
            )?;
            let gname =
                get_str(gkv, "name", &at)?.ok_or_else(|| at.err("the group needs a name"))?;
            check_name(&gname, &prefix, &at.with_field(&gname))?;
            let of = get_str(gkv, "offset_field", &at)?
                .ok_or_else(|| at.err("the group needs offset_field"))?;
            let lf = get_str(gkv, "len_field", &at)?
                .ok_or_else(|| at.err("the group needs len_field"))?;
            let entry_size = get_int(gkv, "entry_size", FRAME as i64, &at)?
                .ok_or_else(|| at.err("the group needs entry_size"))?
                as u16;
            if entry_size == 0 {
                return Err(at.err("the group's entry_size must not be 0"));
            }
            let gfields = parse_fields(list(get(gkv, "field"), "field", &at)?, &prefix, &at)?;
            for f in &gfields {
                let end = field_end(f);
                if end > entry_size as usize {
                    return Err(at.with_field(&f.name).err(format!(
                        "offset {} + {} bytes runs past the group entry size {entry_size}",
                        f.offset,
                        end - f.offset as usize
                    )));
                }
            }
            Some(PackGroup {
                name: gname,
                offset_field: of,
                len_field: lf,
                entry_size,
                fields: gfields,
            })
        }
    };
    if fields.is_empty() && group.is_none() && remove.is_empty() && size.is_none() {
        return Err(at.err("the entry changes nothing (no field, group, remove or size)"));
    }
    Ok(PackRecord {
        name,
        domain,
        record,
        kind,
        release,
        size,
        replace,
        remove,
        seen,
        source,
        fields,
        group,
    })
}

/// A built-in field of (domain, record) named `name` in any version.
fn versions_have(domain: u8, record: u16, name: &str) -> Option<&'static FieldDef> {
    super::versions(domain, record)
        .iter()
        .find_map(|l| l.field(name))
}

/// The byte after a field (variable text: its length field's end or its
/// start, whichever is later).
fn field_end(f: &PackField) -> usize {
    match f.ty {
        FieldType::VarText { len_at } => (len_at as usize + 4).max(f.offset as usize),
        t => f.offset as usize + t.width(),
    }
}

/// Fields with their (owned) names.
type NamedFields = Vec<(String, FieldDef)>;

/// A merged group: name, offset field, length field, entry size, fields.
type MergedGroup = (String, String, String, u16, NamedFields);

/// A merged map: the built-in fields of `base` changed by `e`.
struct Merged {
    size: u16,
    fields: NamedFields,
    group: Option<MergedGroup>,
}

fn merge(
    origin: &str,
    e: &PackRecord,
    base: Option<&'static RecordLayout>,
) -> Result<Merged, PackError> {
    let at = At {
        origin,
        record: Some(e.name.clone()),
        field: None,
    };
    let size = e.size.or(base.map(|b| b.size)).unwrap_or(HEADER_LEN as u16);
    let mut fields: Vec<(String, FieldDef)> = Vec::new();
    if !e.replace {
        if let Some(b) = base {
            for f in b.fields {
                if !e.remove.iter().any(|r| r == f.name)
                    && !e.fields.iter().any(|p| p.name == f.name)
                {
                    fields.push((f.name.to_string(), *f));
                }
            }
        }
    }
    fields.extend(e.fields.iter().map(|f| (f.name.clone(), f.def())));
    fields.sort_by_key(|(_, f)| f.offset);
    check_map(&at, &fields, size as usize, true)?;
    let group = match (&e.group, base.and_then(|b| b.group.as_ref())) {
        (Some(g), _) => {
            let gf: Vec<(String, FieldDef)> =
                g.fields.iter().map(|f| (f.name.clone(), f.def())).collect();
            Some((
                g.name.clone(),
                g.offset_field.clone(),
                g.len_field.clone(),
                g.entry_size,
                gf,
            ))
        }
        (None, Some(bg)) if !e.replace => Some((
            bg.name.to_string(),
            bg.offset_field.to_string(),
            bg.len_field.to_string(),
            bg.entry_size,
            bg.fields.iter().map(|f| (f.name.to_string(), *f)).collect(),
        )),
        _ => None,
    };
    if let Some((gname, of, lf, size, gf)) = &group {
        let mut gf = gf.clone();
        gf.sort_by_key(|(_, f)| f.offset);
        check_map(&at, &gf, *size as usize, false)?;
        for want in [of, lf] {
            match fields.iter().find(|(n, _)| n == want) {
                Some((_, f)) if matches!(f.ty, FieldType::U1 | FieldType::U2 | FieldType::U4) => {}
                Some(_) => {
                    return Err(at
                        .with_field(want)
                        .err(format!("group {gname} needs it unsigned (U1, U2 or U4)")))
                }
                None => {
                    return Err(at.with_field(want).err(format!(
                        "group {gname} refers to it, but the record has no such field"
                    )))
                }
            }
        }
    }
    Ok(Merged {
        size,
        fields,
        group,
    })
}

/// Fields inside the record (after the header when `record`), not overlapping.
fn check_map(
    at: &At<'_>,
    fields: &[(String, FieldDef)],
    size: usize,
    record: bool,
) -> Result<(), PackError> {
    let mut prev: Option<(&str, usize)> = None;
    for (name, f) in fields {
        let atf = at.with_field(name);
        if record && (f.offset as usize) < HEADER_LEN {
            return Err(atf.err(format!(
                "offset {} is inside the 20-byte record header",
                f.offset
            )));
        }
        let (start, end) = match f.ty {
            FieldType::VarText { len_at } => {
                if len_at as usize + 4 > size {
                    return Err(atf.err(format!(
                        "its length field at {len_at} runs past the size {size}"
                    )));
                }
                (f.offset as usize, f.offset as usize)
            }
            t => (f.offset as usize, f.offset as usize + t.width()),
        };
        if end > size || start > size {
            return Err(atf.err(format!(
                "offset {} + {} bytes runs past the {} size {size}",
                f.offset,
                end - start,
                if record { "record" } else { "entry" }
            )));
        }
        if let Some((pname, pend)) = prev {
            if start < pend {
                return Err(atf.err(format!("overlaps {pname} (which ends at offset {pend})")));
            }
        }
        if end > start {
            prev = Some((name, end));
        }
    }
    Ok(())
}

// ------------------------------------------------------------- layout sets

/// Record layouts for every release: the built-in tables, or those merged with
/// a layout pack. The reader decodes through one ([`Reader::with_options`](crate::Reader::with_options)).
pub struct LayoutSet {
    /// Per release of [`Release::KNOWN`]: the layout of each dense slot.
    dense: Vec<Box<DenseLayouts>>,
    /// Layouts outside the dense range, per release of [`Release::KNOWN`].
    other: HashMap<(u8, u16), Vec<Option<&'static RecordLayout>>>,
    /// The pack merged in, if any.
    origin: Option<String>,
}

impl fmt::Debug for LayoutSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LayoutSet")
            .field("origin", &self.origin)
            .finish()
    }
}

/// Most distinct packs one process installs.
pub const MAX_INSTALLED_PACKS: usize = 64;

static INSTALLED: Mutex<Vec<(LayoutPack, &'static LayoutSet)>> = Mutex::new(Vec::new());

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak_fields(fields: &[(String, FieldDef)]) -> &'static [FieldDef] {
    let v: Vec<FieldDef> = fields
        .iter()
        .map(|(n, f)| FieldDef {
            name: leak_str(n),
            ..*f
        })
        .collect();
    Box::leak(v.into_boxed_slice())
}

impl LayoutSet {
    /// The built-in layouts.
    pub fn builtin() -> &'static LayoutSet {
        static SET: OnceLock<LayoutSet> = OnceLock::new();
        SET.get_or_init(|| LayoutSet {
            dense: Release::KNOWN
                .iter()
                .map(|&r| Box::new(*super::dense_layouts(r)))
                .collect(),
            other: HashMap::new(),
            origin: None,
        })
    }

    /// The built-in layouts with `pack` merged over them, for the rest of the
    /// process. Installing the same pack again gives the same set.
    pub fn install(pack: LayoutPack) -> Result<&'static LayoutSet, PackError> {
        let mut done = INSTALLED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, s)) = done.iter().find(|(p, _)| p.records == pack.records) {
            return Ok(s);
        }
        if done.len() >= MAX_INSTALLED_PACKS {
            return Err(PackError {
                origin: pack.origin.clone(),
                record: None,
                field: None,
                message: format!(
                    "more than {MAX_INSTALLED_PACKS} different layout packs in one process"
                ),
            });
        }
        let set: &'static LayoutSet = Box::leak(Box::new(LayoutSet::build(&pack)?));
        done.push((pack, set));
        Ok(set)
    }

    fn build(pack: &LayoutPack) -> Result<LayoutSet, PackError> {
        let builtin = LayoutSet::builtin();
        let mut dense: Vec<Box<DenseLayouts>> =
            builtin.dense.iter().map(|t| Box::new(**t)).collect();
        let mut other: HashMap<(u8, u16), Vec<Option<&'static RecordLayout>>> = HashMap::new();
        // One merged layout per (entry, built-in version) pair.
        let mut made: HashMap<(usize, usize), &'static RecordLayout> = HashMap::new();
        for (d, r) in pack.keys() {
            let mut per_release = Vec::with_capacity(Release::KNOWN.len());
            for (ri, &rel) in Release::KNOWN.iter().enumerate() {
                let base = lookup(d, r, rel);
                let l = match pack.entry_for(d, r, rel) {
                    None => base,
                    Some(e) => {
                        let ei = pack
                            .records
                            .iter()
                            .position(|x| std::ptr::eq(x, e))
                            .unwrap_or(0);
                        let key = (ei, base.map_or(0, |b| b as *const RecordLayout as usize));
                        let l = match made.get(&key) {
                            Some(l) => *l,
                            None => {
                                let l = make_layout(&pack.origin, e, base, rel)?;
                                made.insert(key, l);
                                l
                            }
                        };
                        Some(l)
                    }
                };
                match dense_slot(d, r) {
                    Some(s) => dense[ri][s] = l,
                    None => per_release.push(l),
                }
            }
            if dense_slot(d, r).is_none() {
                other.insert((d, r), per_release);
            }
        }
        Ok(LayoutSet {
            dense,
            other,
            origin: Some(pack.origin.clone()),
        })
    }

    /// The pack merged in (its origin), if any.
    pub fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// The layout of each dense slot in `release` (for the reader).
    pub(crate) fn dense(&self, release: Release) -> &DenseLayouts {
        &self.dense[release.known_index()]
    }

    /// Layout for (domain, record) in `release`.
    pub fn lookup(
        &self,
        domain: u8,
        record: u16,
        release: Release,
    ) -> Option<&'static RecordLayout> {
        match dense_slot(domain, record) {
            Some(s) => self.dense[release.known_index()][s],
            None => match self.other.get(&(domain, record)) {
                Some(v) => v[release.known_index()],
                None => pick(super::versions(domain, record), release),
            },
        }
    }

    /// Every layout of this set for `release`, by (domain, record).
    pub fn all(&self, release: Release) -> Vec<&'static RecordLayout> {
        let t = self.dense(release);
        let mut v: Vec<&'static RecordLayout> = t.iter().flatten().copied().collect();
        let i = release.known_index();
        let mut extra: Vec<&'static RecordLayout> =
            self.other.values().filter_map(|x| x[i]).collect();
        extra.sort_by_key(|l| (l.domain, l.record));
        v.extend(extra);
        v
    }

    /// Layout by IBM record name in `release`.
    pub fn by_name_release(&self, name: &str, release: Release) -> Option<&'static RecordLayout> {
        if let Some(l) = super::by_name_release(name, release) {
            return self.lookup(l.domain, l.record, release);
        }
        let i = release.known_index();
        self.other
            .values()
            .filter_map(|x| x[i])
            .find(|l| l.name == name)
    }
}

/// The merged layout of entry `e` over `base` (leaked: it lives as long as the
/// installed set), with its decode plan registered for [`RecordDecoder`](super::RecordDecoder).
fn make_layout(
    origin: &str,
    e: &PackRecord,
    base: Option<&'static RecordLayout>,
    rel: Release,
) -> Result<&'static RecordLayout, PackError> {
    let m = merge(origin, e, base)?;
    let fields = leak_fields(&m.fields);
    let group = m.group.map(|(name, of, lf, entry_size, gf)| GroupDef {
        name: leak_str(&name),
        offset_field: leak_str(&of),
        len_field: leak_str(&lf),
        entry_size,
        fields: leak_fields(&gf),
    });
    let mut seen: Vec<Release> = base.map_or(&[][..], |b| b.seen).to_vec();
    seen.extend(&e.seen);
    seen.sort_unstable();
    seen.dedup();
    let since = match (e.release, base) {
        (Some(r), Some(b)) => r.max(b.since),
        (Some(r), None) => r,
        (None, Some(b)) => b.since,
        (None, None) => rel,
    };
    // The layout's own tag is the weakest of its fields'.
    let src = fields
        .iter()
        .map(|f| f.src)
        .max_by_key(|c| rank(*c))
        .unwrap_or(Confidence::Ibm);
    let l: &'static RecordLayout = Box::leak(Box::new(RecordLayout {
        domain: e.domain,
        record: e.record,
        name: base.map_or_else(|| leak_str(&e.name), |b| b.name),
        kind: e.kind,
        since,
        size: m.size,
        src,
        fields,
        group,
        seen: Box::leak(seen.into_boxed_slice()),
        source: leak_str(&e.source),
        note: leak_str(&format!("from layout pack {origin}")),
    }));
    super::plan::register_plan(l);
    Ok(l)
}

/// Order of confidence, strongest first.
fn rank(c: Confidence) -> u8 {
    match c {
        Confidence::Ibm => 0,
        Confidence::Linux => 1,
        Confidence::Z53 => 2,
        Confidence::Inferred => 3,
    }
}

#[cfg(test)]
mod tests;
