//! Arrow record batches of the kernel's rows: one table per entity.
//!
//! Per-interval tables start with `interval` (index in the window), `start`
//! and `end` (local time of the monitored system, timestamps in
//! microseconds), then the entity's key columns, `flags` (the per-sample
//! flags of `crate::delta`: 1 a counter wrapped, 2 a 64-bit time stepped back
//! (a glitch); on the system rows also 4 a key's time was reset and 8 a key's
//! sample only set a baseline), then one column per sum
//! (`Int64` for integer sums, `Float64` otherwise; null = absent). The system
//! table also has `start_tod` and `end_tod`, the raw TOD clock values. Window
//! totals have the key and sum columns only.

use crate::kernel::{Batch, Keyed, Row, SysRow, Totals};
use crate::schema::{cpu, device, exposure, lpar, system, user, Col};
use arrow_array::{
    ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray,
    UInt64Array,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use std::sync::Arc;

/// The entity tables, in this order.
pub const ENTITIES: [&str; 6] = ["system", "cpu", "lpar", "user", "device", "exposure"];

/// The sum columns of an entity.
pub fn columns(entity: &str) -> &'static [Col] {
    match entity {
        "system" => system::COLS,
        "cpu" => cpu::COLS,
        "lpar" => lpar::COLS,
        "user" => user::COLS,
        "device" => device::COLS,
        _ => exposure::COLS,
    }
}

fn ts() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, None)
}

/// Key columns of an entity (after interval/start/end).
fn key_fields(entity: &str) -> Vec<Field> {
    match entity {
        "system" => vec![
            Field::new("start_tod", DataType::UInt64, false),
            Field::new("end_tod", DataType::UInt64, false),
        ],
        "cpu" => vec![Field::new("cpu", DataType::Int64, true)],
        "lpar" => vec![
            Field::new("partition", DataType::Utf8, false),
            Field::new("cpu", DataType::Int64, true),
        ],
        "user" => vec![Field::new("userid", DataType::Utf8, false)],
        _ => vec![Field::new("devno", DataType::Int64, false)],
    }
}

fn value_fields(cols: &[Col]) -> Vec<Field> {
    cols.iter()
        .map(|c| {
            let t = if c.int {
                DataType::Int64
            } else {
                DataType::Float64
            };
            Field::new(c.name, t, true)
        })
        .collect()
}

/// Schema of an entity's per-interval table (`per_interval`) or totals table.
pub fn schema(entity: &str, per_interval: bool) -> Arc<Schema> {
    let mut f = Vec::new();
    if per_interval {
        f.push(Field::new("interval", DataType::UInt64, false));
        f.push(Field::new("start", ts(), false));
        f.push(Field::new("end", ts(), false));
        f.extend(key_fields(entity));
        f.push(Field::new("flags", DataType::Int64, false));
    } else if entity != "system" {
        f.extend(key_fields(entity));
    }
    f.extend(value_fields(columns(entity)));
    Arc::new(Schema::new(f))
}

fn value_arrays<'a>(cols: &[Col], rows: impl Iterator<Item = &'a [f64]> + Clone) -> Vec<ArrayRef> {
    // Rows are read once, in order, into one vector per column (the rows
    // are wide: reading them column by column would stride through memory).
    let n = rows.clone().count();
    let mut vals: Vec<Vec<f64>> = (0..cols.len()).map(|_| Vec::with_capacity(n)).collect();
    for r in rows {
        for (v, x) in vals.iter_mut().zip(r) {
            v.push(*x);
        }
    }
    cols.iter()
        .zip(vals)
        .map(|(c, v)| -> ArrayRef {
            let nulls = v
                .iter()
                .any(|x| x.is_nan())
                .then(|| NullBuffer::from_iter(v.iter().map(|x| !x.is_nan())));
            if c.int {
                let ints: Vec<i64> = v
                    .iter()
                    .map(|x| if x.is_nan() { 0 } else { *x as i64 })
                    .collect();
                Arc::new(Int64Array::new(ints.into(), nulls))
            } else {
                let fl: Vec<f64> = v
                    .iter()
                    .map(|x| if x.is_nan() { 0.0 } else { *x })
                    .collect();
                Arc::new(Float64Array::new(fl.into(), nulls))
            }
        })
        .collect()
}

/// Keys of a table as arrays.
trait KeyCols {
    fn arrays(keys: &[&Self]) -> Vec<ArrayRef>;
}

impl KeyCols for Option<i64> {
    fn arrays(keys: &[&Self]) -> Vec<ArrayRef> {
        vec![Arc::new(Int64Array::from(
            keys.iter().map(|k| **k).collect::<Vec<_>>(),
        ))]
    }
}

impl KeyCols for i64 {
    fn arrays(keys: &[&Self]) -> Vec<ArrayRef> {
        vec![Arc::new(Int64Array::from(
            keys.iter().map(|k| **k).collect::<Vec<_>>(),
        ))]
    }
}

/// A user id with the names to show it by.
pub struct UserKey<'a>(pub u32, pub &'a [String]);

impl KeyCols for UserKey<'_> {
    fn arrays(keys: &[&Self]) -> Vec<ArrayRef> {
        vec![Arc::new(StringArray::from(
            keys.iter()
                .map(|k| k.1.get(k.0 as usize).map_or("", |s| s.as_str()))
                .collect::<Vec<_>>(),
        ))]
    }
}

impl KeyCols for String {
    fn arrays(keys: &[&Self]) -> Vec<ArrayRef> {
        vec![Arc::new(StringArray::from(
            keys.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
        ))]
    }
}

impl KeyCols for (String, Option<i64>) {
    fn arrays(keys: &[&Self]) -> Vec<ArrayRef> {
        vec![
            Arc::new(StringArray::from(
                keys.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(),
            )),
            Arc::new(Int64Array::from(
                keys.iter().map(|k| k.1).collect::<Vec<_>>(),
            )),
        ]
    }
}

/// Start and end (local µs) of the intervals of a batch, by interval index
/// (the batch's intervals are consecutive).
struct Times {
    first: u64,
    t: Vec<(i64, i64)>,
}

impl Times {
    #[inline]
    fn get(&self, interval: &u64) -> Option<&(i64, i64)> {
        interval
            .checked_sub(self.first)
            .and_then(|i| self.t.get(i as usize))
    }
}

fn interval_batch<K: KeyCols, const N: usize>(
    entity: &str,
    rows: &[Row<K, N>],
    times: &Times,
) -> Result<RecordBatch, ArrowError> {
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(UInt64Array::from(
            rows.iter().map(|r| r.interval).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampMicrosecondArray::from(
            rows.iter()
                .map(|r| times.get(&r.interval).map_or(0, |t| t.0))
                .collect::<Vec<_>>(),
        )),
        Arc::new(TimestampMicrosecondArray::from(
            rows.iter()
                .map(|r| times.get(&r.interval).map_or(0, |t| t.1))
                .collect::<Vec<_>>(),
        )),
    ];
    let keys: Vec<&K> = rows.iter().map(|r| &r.key).collect();
    cols.extend(K::arrays(&keys));
    cols.push(flags_array(rows.iter().map(|r| r.flags)));
    cols.extend(value_arrays(columns(entity), rows.iter().map(|r| &r.v[..])));
    RecordBatch::try_new(schema(entity, true), cols)
}

fn system_batch(rows: &[SysRow]) -> Result<RecordBatch, ArrowError> {
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(UInt64Array::from(
            rows.iter().map(|r| r.index).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampMicrosecondArray::from(
            rows.iter().map(|r| r.start_us).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampMicrosecondArray::from(
            rows.iter().map(|r| r.end_us).collect::<Vec<_>>(),
        )),
        Arc::new(UInt64Array::from(
            rows.iter().map(|r| r.start_tod).collect::<Vec<_>>(),
        )),
        Arc::new(UInt64Array::from(
            rows.iter().map(|r| r.end_tod).collect::<Vec<_>>(),
        )),
        flags_array(rows.iter().map(|r| r.flags)),
    ];
    cols.extend(value_arrays(system::COLS, rows.iter().map(|r| &r.v[..])));
    RecordBatch::try_new(schema("system", true), cols)
}

fn flags_array(flags: impl Iterator<Item = u8>) -> ArrayRef {
    Arc::new(Int64Array::from(
        flags.map(|f| f as i64).collect::<Vec<_>>(),
    ))
}

/// The per-interval batches of `b`, one per entity in [`ENTITIES`] order.
pub fn interval_batches(b: &Batch, users: &[String]) -> Result<Vec<RecordBatch>, ArrowError> {
    let first = b.system.first().map_or(0, |r| r.index);
    debug_assert!(b
        .system
        .iter()
        .enumerate()
        .all(|(i, r)| r.index == first + i as u64));
    let times = Times {
        first,
        t: b.system.iter().map(|r| (r.start_us, r.end_us)).collect(),
    };
    Ok(vec![
        system_batch(&b.system)?,
        interval_batch("cpu", &b.cpu, &times)?,
        interval_batch("lpar", &b.lpar, &times)?,
        interval_batch("user", &user_rows(&b.user, users), &times)?,
        interval_batch("device", &b.device, &times)?,
        interval_batch("exposure", &b.exposure, &times)?,
    ])
}

fn user_rows<'a>(
    rows: &[Row<u32, { user::N }>],
    names: &'a [String],
) -> Vec<Row<UserKey<'a>, { user::N }>> {
    rows.iter()
        .map(|r| Row {
            interval: r.interval,
            key: UserKey(r.key, names),
            v: r.v,
            flags: r.flags,
        })
        .collect()
}

fn user_keyed<'a>(
    k: &Keyed<u32, { user::N }>,
    names: &'a [String],
) -> Keyed<UserKey<'a>, { user::N }> {
    Keyed {
        index: Default::default(),
        rows: k
            .rows
            .iter()
            .map(|(id, v)| (UserKey(*id, names), *v))
            .collect(),
    }
}

fn keyed_batch<K: KeyCols, const N: usize>(
    entity: &str,
    k: &Keyed<K, N>,
) -> Result<RecordBatch, ArrowError> {
    let keys: Vec<&K> = k.rows.iter().map(|r| &r.0).collect();
    let mut cols = K::arrays(&keys);
    cols.extend(value_arrays(
        columns(entity),
        k.rows.iter().map(|r| &r.1[..]),
    ));
    RecordBatch::try_new(schema(entity, false), cols)
}

/// Window totals, one batch per entity in [`ENTITIES`] order (the system's
/// has one row, none when the window has no interval).
pub fn total_batches(
    t: &Totals,
    intervals: u64,
    users: &[String],
) -> Result<Vec<RecordBatch>, ArrowError> {
    let sys: Vec<&[f64]> = if intervals > 0 {
        vec![&t.system[..]]
    } else {
        vec![]
    };
    let system = RecordBatch::try_new(
        schema("system", false),
        value_arrays(system::COLS, sys.into_iter()),
    )?;
    Ok(vec![
        system,
        keyed_batch("cpu", &t.cpu)?,
        keyed_batch("lpar", &t.lpar)?,
        keyed_batch("user", &user_keyed(&t.user, users))?,
        keyed_batch("device", &t.device)?,
        keyed_batch("exposure", &t.exposure)?,
    ])
}

/// A value of a Float64 column as an option (tests and callers).
pub fn f64_at(a: &Float64Array, i: usize) -> Option<f64> {
    use arrow_array::Array;
    (!a.is_null(i)).then(|| a.value(i))
}
