//! The record layouts, as data: one entry per (domain, record, layout
//! version). A version covers the releases from its `since` up to the next
//! version's; versions are split where a record's size changes.
//!
//! Sources and confidence follow `shared/spec/monitor-records.md`:
//! `Ibm` = seen in an IBM monitor-record page (www.vm.ibm.com/pubs/monNNN/),
//! `Z53` = the z/VM 5.3 structs of the open-source zpmd daemon
//! (github.com/pak-center/zpmd, src/v53_records.h, offsets computed packed after
//! the 20-byte header), `Inferred` = our reconstruction. Each version lists in
//! `seen` the releases whose IBM page (or, for 5.3, zpmd struct) showed its
//! size: a release that is neither listed nor between two listed releases of
//! the same version has its layout carried over from the nearest confirmed one,
//! and every field counts as inferred there (see `RecordLayout::confidence_in`).
//! The IBM pages could only be read as far as their opening (prolog and first
//! fields), which is why the bodies of the large records come from zpmd or
//! remain inferred.
//!
//! **This file is the one place that says what is known**: when a real MONWRITE
//! file or IBM's book shows a different offset, change the entry here (or load
//! a layout pack, `docs/monitor-format.md`) and nothing else.

use super::Confidence::{self, Ibm, Inferred as Inf, Z53};
use super::FieldType::{self, *};
use super::{FieldDef, GroupDef, RecordKind, RecordLayout, Release};

const fn fd(name: &'static str, offset: u16, ty: FieldType, src: Confidence) -> FieldDef {
    FieldDef { name, offset, ty, src }
}

pub(crate) const R42: Release = Release(4, 2);
pub(crate) const R43: Release = Release(4, 3);
pub(crate) const R44: Release = Release(4, 4);
pub(crate) const R51: Release = Release(5, 1);
pub(crate) const R52: Release = Release(5, 2);
pub(crate) const R53: Release = Release(5, 3);
pub(crate) const R54: Release = Release(5, 4);
pub(crate) const R61: Release = Release(6, 1);
pub(crate) const R62: Release = Release(6, 2);
pub(crate) const R63: Release = Release(6, 3);
pub(crate) const R64: Release = Release(6, 4);
pub(crate) const R71: Release = Release(7, 1);
pub(crate) const R72: Release = Release(7, 2);
pub(crate) const R73: Release = Release(7, 3);
pub(crate) const R74: Release = Release(7, 4);
pub(crate) const R75: Release = Release(7, 5);

/// One layout version: `since` release, `size` in that release, `seen`
/// releases that confirm the size, `src` of the layout as a whole.
#[allow(clippy::too_many_arguments)]
const fn v(
    domain: u8,
    record: u16,
    name: &'static str,
    kind: RecordKind,
    since: Release,
    size: u16,
    src: Confidence,
    fields: &'static [FieldDef],
    seen: &'static [Release],
    source: &'static str,
    note: &'static str,
) -> RecordLayout {
    RecordLayout {
        domain,
        record,
        name,
        kind,
        since,
        size,
        src,
        fields,
        group: None,
        seen,
        source,
        note,
    }
}

use RecordKind::{Config as C, Control as K, Event as E, Sample as S};

// ---------------------------------------------------------------- field maps
static SYTSYP: &[FieldDef] = &[
    fd("SYTSYP_PFXCPUAD", 20, U2, Ibm),
    fd("SYTSYP_PLSABNCT", 24, U4, Ibm),
    fd("SYTSYP_PLSDIAGT", 28, U4, Ibm),
    fd("SYTSYP_PLSPRVIS", 32, U4, Ibm),
    fd("SYTSYP_PLSEXTNX", 36, U4, Z53),
    fd("SYTSYP_PLSEXTNC", 40, U4, Z53),
    fd("SYTSYP_PLSMCHCT", 44, U4, Z53),
    fd("SYTSYP_PLSCTSS", 48, U4, Z53),
    fd("SYTSYP_PLSCTRS", 52, U4, Z53),
    fd("SYTSYP_PLSCTCS", 56, U4, Z53),
    fd("SYTSYP_PLSCTHS", 60, U4, Z53),
    fd("SYTSYP_PLSCTSI", 64, U4, Z53),
    fd("SYTSYP_PLSCTUI", 68, U4, Z53),
    fd("SYTSYP_PLSPIOPR", 72, U4, Z53),
    fd("SYTSYP_PLSPIOPW", 76, U4, Z53),
    fd("SYTSYP_PLSPIOSR", 80, U4, Z53),
    fd("SYTSYP_PLSPIOSW", 84, U4, Z53),
    fd("SYTSYP_PLSDGUCT", 88, U4, Z53),
    fd("SYTSYP_PLSXITCT", 92, U4, Z53),
    fd("SYTSYP_PLSPAGPS", 96, U4, Z53),
    fd("SYTSYP_PLSSTKPE", 100, U4, Z53),
    fd("SYTSYP_PLSTMRCE", 104, U4, Z53),
    fd("SYTSYP_PLSPRVSC", 108, U4, Z53),
    fd("SYTSYP_PFXCPUTY", 112, U1, Z53),
];

static SYTPRP: &[FieldDef] = &[
    fd("SYTPRP_PFXCPUAD", 20, U2, Ibm),
    fd("SYTPRP_PLSCUHAF", 22, U2, Ibm),
    fd("SYTPRP_PFXPRBTM", 24, Dur, Ibm),
    fd("SYTPRP_PFXUTIME", 32, Dur, Ibm),
    fd("SYTPRP_PFXTMSYS", 40, Dur, Z53),
    fd("SYTPRP_PFXTOTWT", 68, Dur, Z53),
    fd("SYTPRP_PFXRUNCI", 76, U4, Z53),
    fd("SYTPRP_PFXRUNPF", 80, U4, Z53),
    fd("SYTPRP_PFXRUNCP", 84, U4, Z53),
    fd("SYTPRP_CALFSTPH", 88, U4, Z53),
    fd("SYTPRP_PFXSPINT", 92, Dur, Z53),
    fd("SYTPRP_PFXSPINC", 100, U4, Z53),
    fd("SYTPRP_PFXCPUTY", 104, U1, Z53),
];

static SYTRSG: &[FieldDef] = &[
    fd("SYTRSG_SYSRSVPG", 36, U4, Z53),
    fd("SYTRSG_RSACPLOK", 40, U4, Z53),
    fd("SYTRSG_RSANONPG", 44, U4, Z53),
    fd("SYTRSG_RSAPGABL", 48, U4, Z53),
    fd("SYTRSG_RSAAVAIL", 52, U4, Z53),
    fd("SYTRSG_RSAFRQWT", 56, U4, Z53),
    fd("SYTRSG_RSAXTEND", 60, U4, Z53),
    fd("SYTRSG_RSASAVFR", 68, U4, Z53),
    fd("SYTRSG_CALFLAG1", 73, Bits(1), Z53),
    fd("SYTRSG_HCPSTPMB", 74, U2, Z53),
    // Minidisk cache in central storage (zpmd's names; meanings inferred):
    // ideal (arbiter's target) and actual frames, SET MDC STORAGE min/max.
    fd("SYTRSG_TCMMIDSZ", 84, U4, Z53),
    fd("SYTRSG_TCMMAIN", 88, U4, Z53),
    fd("SYTRSG_TCMMNMIN", 92, U4, Z53),
    fd("SYTRSG_TCMMNMAX", 96, U4, Z53),
    fd("SYTRSG_TCMMNDL", 100, U4, Z53),
    fd("SYTRSG_TCMSTLMN", 104, U4, Z53),
    fd("SYTRSG_TCMMNBLW", 112, U4, Z53),
    fd("SYTRSG_TCMMNABV", 116, U4, Z53),
    fd("SYTRSG_RSA2GDCT", 120, U4, Z53),
    fd("SYTRSG_SYSSCGCT", 124, U4, Z53),
    fd("SYTRSG_RSALGFRM", 128, U8, Z53),
    fd("SYTRSG_RSACPLKG", 136, U4, Z53),
    fd("SYTRSG_RSA2GAVL", 140, U8, Z53),
    fd("SYTRSG_RSA2GAV1", 148, U4, Z53),
    fd("SYTRSG_RSA2GAV2", 152, U4, Z53),
    fd("SYTRSG_RSARESAC", 484, U4, Z53),
    fd("SYTRSG_RSARESBC", 488, U4, Z53),
];

static SYTRSP: &[FieldDef] = &[
    fd("SYTRSP_PFXCPUAD", 20, U2, Ibm),
    fd("SYTRSP_PLSSTLFR", 24, U4, Ibm),
    fd("SYTRSP_PLSPRQDF", 28, U4, Ibm),
    fd("SYTRSP_PLSSHRRD", 32, U4, Ibm),
    fd("SYTRSP_PLSALEMP", 36, U4, Ibm),
    fd("SYTRSP_PLSNOCMP", 40, U4, Z53),
    fd("SYTRSP_PLSMVB2G", 44, U4, Z53),
    fd("SYTRSP_PLSALEMG", 48, U4, Z53),
    fd("SYTRSP_PLSGCLEM", 52, U4, Z53),
    fd("SYTRSP_PLSMVABV", 56, U4, Z53),
    fd("SYTRSP_PFXCPUTY", 60, U1, Z53),
    fd("SYTRSP_PLSALECL", 64, U4, Z53),
    fd("SYTRSP_PLSALECG", 68, U4, Z53),
];

static SYTXSP: &[FieldDef] = &[
    fd("SYTXSP_PFXCPUAD", 20, U2, Z53),
    fd("SYTXSP_PFXPGIN", 24, U4, Z53),
    fd("SYTXSP_PLSPGIN", 28, U4, Z53),
    fd("SYTXSP_PLSPGOUT", 32, U4, Z53),
    fd("SYTXSP_PLSPGXRD", 36, U4, Z53),
    fd("SYTXSP_PLSPGXWT", 40, U4, Z53),
    fd("SYTXSP_PLSPGMRX", 44, U4, Z53),
    fd("SYTXSP_PLSPGMRD", 48, U4, Z53),
    fd("SYTXSP_PFXCPUTY", 52, U1, Z53),
];

static SYTASG: &[FieldDef] = &[
    fd("SYTASG_CAL90FUL", 20, U4, Ibm),
    fd("SYTASG_CAL91FUL", 24, U4, Z53),
    fd("SYTASG_CALSLTA1", 28, U4, Z53),
    fd("SYTASG_CALSLTI1", 32, U4, Z53),
    fd("SYTASG_CALSLTA2", 44, U4, Z53),
    fd("SYTASG_CALSLTI2", 48, U4, Z53),
    fd("SYTASG_SYSSFCRT", 52, U4, Z53),
    fd("SYTASG_SYSSFPUR", 56, U4, Z53),
    fd("SYTASG_CALTOTM1", 60, U4, Z53),
    fd("SYTASG_CALAVGM1", 64, U4, Z53),
    fd("SYTASG_CALTOTM2", 68, U4, Z53),
    fd("SYTASG_CALAVGM2", 72, U4, Z53),
    fd("SYTASG_CALDMPAV", 76, U4, Z53),
    fd("SYTASG_CALDMPIU", 80, U4, Z53),
];

static SYTUWT: &[FieldDef] = &[
    fd("SYTUWT_CALTIDL", 20, U4, Z53),
    fd("SYTUWT_CALTSVM", 24, U4, Z53),
    fd("SYTUWT_CALIOWT", 28, S4, Z53),
    fd("SYTUWT_CALWTPAG", 32, S4, Z53),
    fd("SYTUWT_CALCFWT", 36, S4, Z53),
    fd("SYTUWT_CALSIMWT", 40, S4, Z53),
    fd("SYTUWT_CALCPUWT", 44, S4, Z53),
    fd("SYTUWT_CALCPURN", 48, S4, Z53),
    fd("SYTUWT_CALOTHR", 52, S4, Z53),
    fd("SYTUWT_CALQDISP", 56, S4, Z53),
    fd("SYTUWT_CALELSVM", 60, S4, Z53),
    fd("SYTUWT_SRMCELIG", 64, U2, Z53),
    fd("SYTUWT_SRMDSVMW", 68, S4, Z53),
    fd("SYTUWT_CALIOACT", 72, U4, Z53),
    fd("SYTUWT_CALLLIST", 76, U4, Z53),
];

static SYTXSG: &[FieldDef] = &[
    fd("SYTXSG_XSTXBGET", 20, U4, Z53),
    fd("SYTXSG_XSTXBREL", 24, U4, Z53),
    fd("SYTXSG_XSTUSRSH", 28, U4, Z53),
    fd("SYTXSG_XSTCTXAV", 32, U8, Z53),
    fd("SYTXSG_XSTCPPAR", 40, U8, Z53),
    fd("SYTXSG_HCPMDCPY", 48, U4, Z53),
    fd("SYTXSG_HCPMDCPN", 52, U4, Z53),
    fd("SYTXSG_HCPMDCPR", 56, U4, Z53),
    fd("SYTXSG_HCPMDCPW", 60, U4, Z53),
    fd("SYTXSG_HCPMDCAC", 64, U4, Z53),
    fd("SYTXSG_HCPMDCNE", 68, U4, Z53),
    fd("SYTXSG_HCPMDCEX", 76, U4, Z53),
    fd("SYTXSG_HCPMDCLI", 80, U4, Z53),
    fd("SYTXSG_CALMDCAU", 84, U4, Z53),
    fd("SYTXSG_HCPMDCIS", 100, U4, Z53),
    fd("SYTXSG_HCPMDCQC", 124, U4, Z53),
    fd("SYTXSG_HCPMDCXG", 128, U4, Z53),
    fd("SYTXSG_HCPMDCXR", 132, U4, Z53),
    fd("SYTXSG_HCPMDCTR", 136, U4, Z53),
    fd("SYTXSG_HCPMDCIA", 140, U4, Z53),
    fd("SYTXSG_HCPMDCIB", 144, U4, Z53),
    fd("SYTXSG_HCPMDCIT", 148, U4, Z53),
    fd("SYTXSG_TCMXIDSZ", 156, U4, Z53),
    fd("SYTXSG_TCMXSMIN", 160, U4, Z53),
    fd("SYTXSG_TCMSTLXS", 164, U4, Z53),
    fd("SYTXSG_XSTAVGAG", 168, U4, Z53),
];

static SYTCUG: &[FieldDef] = &[
    fd("SYTCUG_LCUTNPAR", 20, U1, Z53),
    fd("SYTCUG_LCUTFLAG", 21, Bits(1), Z53),
    fd("SYTCUG_LCUTSLCE", 24, U2, Z53),
    fd("SYTCUG_LCUTPCCT", 26, U2, Z53),
    fd("SYTCUG_LPNUMBER", 28, U2, Z53),
    fd("SYTCUG_CPUCHAR", 31, Bits(1), Z53),
    fd("SYTCUG_CPUCOUNT", 32, U2, Z53),
    fd("SYTCUG_CPUCFGCT", 34, U2, Z53),
    fd("SYTCUG_CPUSTNBY", 36, U2, Z53),
    fd("SYTCUG_CPURESVD", 38, U2, Z53),
    fd("SYTCUG_LPARNAME", 40, Char(8), Z53),
    fd("SYTCUG_LPARCAF", 48, U4, Z53),
    fd("SYTCUG_CPUDEDCT", 52, U2, Z53),
    fd("SYTCUG_CPUSHARD", 54, U2, Z53),
];

static MTREPR: &[FieldDef] = &[
    fd("MTREPR_EDOMAINS", 20, Bits(1), Z53),
    fd("MTREPR_EDOMAIN2", 21, Bits(1), Z53),
    fd("MTREPR_CONFIG", 22, U2, Z53),
];

static MTRECM: &[FieldDef] = &[
    fd("MTRECM_CALBYCT", 20, U4, Ibm),
    fd("MTRECM_CALCMD", 24, VarText { len_at: 20 }, Ibm),
];

static MTRSUS: &[FieldDef] = &[fd("MTRSUS_LOSTRCCT", 20, U4, Ibm)];

static MTRSYS: &[FieldDef] = &[
    fd("MTRSYS_HCPCPEPP", 20, Bits(8), Ibm),
    fd("MTRSYS_HCPCPEID", 28, Char(8), Z53),
    fd("MTRSYS_SYSTODST", 36, Tod, Z53),
    fd("MTRSYS_SYSTERM", 44, Tod, Z53),
    fd("MTRSYS_SYSDATE", 52, Char(8), Z53),
    fd("MTRSYS_SYSABNCD", 60, Char(8), Z53),
    fd("MTRSYS_SYSZONE", 80, S4, Z53),
    fd("MTRSYS_CALFLGS", 84, Bits(1), Z53),
    fd("MTRSYS_SYSVRFSG", 85, U1, Z53),
    fd("MTRSYS_CALFLG2", 86, Bits(1), Z53),
    fd("MTRSYS_SYSTMID", 88, Char(8), Z53),
    fd("MTRSYS_SYSCKVOL", 96, Char(6), Z53),
    fd("MTRSYS_SYSWMVOL", 102, Char(6), Z53),
    fd("MTRSYS_SYSMTYPE", 108, Char(4), Z53),
    fd("MTRSYS_SYSMMODL", 112, Char(16), Z53),
    fd("MTRSYS_SYSMSEQC", 128, Char(16), Z53),
    fd("MTRSYS_SYSMPOM", 144, Char(4), Z53),
    fd("MTRSYS_LPNUMBER", 148, U2, Z53),
    fd("MTRSYS_CPUCHAR", 150, Bits(1), Z53),
    fd("MTRSYS_CPUCOUNT", 152, U2, Z53),
    fd("MTRSYS_CPUCFGCT", 154, U2, Z53),
    fd("MTRSYS_CPUSTNBY", 156, U2, Z53),
    fd("MTRSYS_CPURESVD", 158, U2, Z53),
    fd("MTRSYS_LPARNAME", 160, Char(8), Z53),
    fd("MTRSYS_LPARCAF", 168, U4, Z53),
    fd("MTRSYS_CPUDEDCT", 172, U2, Z53),
    fd("MTRSYS_CPUSHARD", 174, U2, Z53),
    fd("MTRSYS_CPUCAPAB", 176, U4, Z53),
    fd("MTRSYS_SCPCAPAB", 180, U4, Z53),
];

static MTRPRP: &[FieldDef] = &[
    fd("MTRPRP_PFXCPUAD", 20, U2, Z53),
    fd("MTRPRP_PFXIDMDL", 22, Bits(2), Z53),
    fd("MTRPRP_PFXIDSER", 24, Bits(3), Z53),
    fd("MTRPRP_CALFLAGS", 28, Bits(1), Z53),
    fd("MTRPRP_PCCCSU", 29, U1, Z53),
    fd("MTRPRP_PFXIDVER", 30, U1, Z53),
    fd("MTRPRP_PFXTYPE", 31, U1, Z53),
    fd("MTRPRP_CALUDED", 32, Char(8), Z53),
    fd("MTRPRP_PFXCPUTY", 40, U1, Z53),
];

static MTRSPR: &[FieldDef] = &[
    fd("MTRSPR_INTERVAL", 20, S4, Z53),
    fd("MTRSPR_HFRATE", 24, S4, Z53),
    fd("MTRSPR_SDOMAINS", 28, Bits(1), Z53),
    fd("MTRSPR_HDOMAINS", 30, Bits(1), Z53),
    fd("MTRSPR_CONFIG", 32, U2, Z53),
];

static MTRSCM: &[FieldDef] = &[
    fd("MTRSCM_CALTOD", 20, Tod, Z53),
    fd("MTRSCM_CALBYCT", 28, U4, Z53),
    fd("MTRSCM_CALCMD", 32, VarText { len_at: 28 }, Z53),
];

static MTRXSG: &[FieldDef] = &[
    fd("MTRXSG_XSTOTALB", 20, U8, Ibm),
    fd("MTRXSG_SYSXTSIZ", 28, U8, Ibm),
];

// MRSTORSG's fields up to 5.3's size, with `$extra` after them (6.3's
// aging-list fields).
macro_rules! storsg {
    ($($extra:expr),* $(,)?) => {
        &[
            fd("STORSG_CALSSUBT", 20, U4, Ibm),
            fd("STORSG_RSASAVFR", 28, U4, Ibm),
            fd("STORSG_RSAMAXPP", 32, U4, Ibm),
            fd("STORSG_RSACPLOK", 36, U4, Z53),
            fd("STORSG_RSAAVLLT", 40, U4, Z53),
            fd("STORSG_RSAAVLHT", 44, U4, Z53),
            fd("STORSG_XSTBPRCT", 48, U4, Z53),
            fd("STORSG_XSTSRGCT", 52, U4, Z53),
            fd("STORSG_XSTMRABI", 56, U4, Z53),
            fd("STORSG_XSTSRABI", 60, U4, Z53),
            fd("STORSG_XSTSRSCT", 64, U4, Z53),
            fd("STORSG_RSAAVLHG", 88, U4, Z53),
            fd("STORSG_RSAAVLLG", 92, U4, Z53),
            fd("STORSG_RSACPLKG", 96, U4, Z53),
            fd("STORSG_RSARSVSY", 104, U4, Z53),
            fd("STORSG_RSACALLT", 108, U8, Z53),
            fd("STORSG_RSACALMT", 116, U8, Z53),
            fd("STORSG_RSACALUT", 124, U8, Z53),
            fd("STORSG_RSAAFSDW", 132, U4, Z53),
            fd("STORSG_RSAAFSDB", 136, U4, Z53),
            fd("STORSG_RSAAFSIU", 140, U4, Z53),
            fd("STORSG_RSAAFSIB", 144, U4, Z53),
            fd("STORSG_RSAVCBDW", 148, U4, Z53),
            fd("STORSG_RSAVCBDB", 152, U4, Z53),
            fd("STORSG_RSAVCBIU", 156, U4, Z53),
            fd("STORSG_RSAVCBIB", 160, U4, Z53),
            fd("STORSG_RSAVFSDW", 164, U4, Z53),
            fd("STORSG_RSAVFSIU", 168, U4, Z53),
            fd("STORSG_RSA2GDCT", 172, U4, Z53),
            fd("STORSG_RSAFRQWT", 176, U4, Z53),
            fd("STORSG_RSAFRRDA", 180, U4, Z53),
            fd("STORSG_RSAFRRDC", 184, U4, Z53),
            fd("STORSG_RSASTLWT", 188, U4, Z53),
            fd("STORSG_RSANPGCT", 244, U4, Z53),
            fd("STORSG_RSANPGHI", 248, U4, Z53),
            fd("STORSG_RSAAVCLT", 300, U4, Z53),
            fd("STORSG_RSAAVCHT", 304, U4, Z53),
            fd("STORSG_RSAAVCLG", 308, U4, Z53),
            fd("STORSG_RSAAVCHG", 312, U4, Z53),
            fd("STORSG_RSAEMLO", 316, U4, Z53),
            fd("STORSG_RSAEMHI", 320, U4, Z53),
            fd("STORSG_RSAEMCPC", 324, U4, Z53),
            fd("STORSG_RSAEMERG", 328, U4, Z53),
            fd("STORSG_RSAEMBLO", 332, U4, Z53),
            fd("STORSG_RSAEMPTY", 336, U4, Z53),
            fd("STORSG_RSAEMDFR", 340, U4, Z53),
            fd("STORSG_RSASWPWT", 344, U4, Z53),
            fd("STORSG_RSASWP2G", 348, U4, Z53),
            $($extra,)*
        ]
    };
}

static STORSG: &[FieldDef] = storsg!();

// MRSTORSG from 6.3 (780 bytes, IBM mon630): the fields CP appended at 6.3
// for the global aging list were NOT found in the sources read (the pages
// could be read as far as their opening only; queries listed in
// docs/monitor-format.md, "6.3+ memory fields"). ztwin carries the aging
// list in an INFERRED block of its own in the appended area, past 6.2's 464
// bytes: its names (`STORSG_AGL...`) and offsets are ztwin's, not IBM's. A
// real 6.3+ MONWRITE file has other data there: load a layout pack with
// IBM's map to read one.
static STORSG_63: &[FieldDef] = storsg!(
    fd("STORSG_AGLFRAME", 464, U4, Inf),
    fd("STORSG_AGLTARGT", 468, U4, Inf),
    fd("STORSG_AGLEWINF", 472, U4, Inf),
    fd("STORSG_AGLFLAGS", 476, Bits(1), Inf),
    fd("STORSG_AGLMOVED", 480, U8, Inf),
    fd("STORSG_AGLEXAMD", 488, U8, Inf),
    fd("STORSG_AGLRECLM", 496, U8, Inf),
    fd("STORSG_AGLRCLFT", 504, U8, Inf),
    fd("STORSG_AGLFRNIO", 512, U8, Inf),
    fd("STORSG_AGLFRWRT", 520, U8, Inf),
    fd("STORSG_AGLFRWAI", 528, U8, Inf),
    fd("STORSG_AGLPGOUT", 536, U8, Inf),
    fd("STORSG_AGLEWRIT", 544, U8, Inf),
    fd("STORSG_AGLREPLN", 552, U8, Inf),
);

static STORSP: &[FieldDef] = &[
    fd("STORSP_PFXCPUAD", 20, U2, Ibm),
    fd("STORSP_PLSPREAD", 56, U4, Z53),
    fd("STORSP_PLSPNEW", 60, U4, Z53),
    fd("STORSP_PFXCLEAR", 64, U4, Z53),
    fd("STORSP_PFXPTRCT", 68, U4, Z53),
    fd("STORSP_PLSRELES", 72, U4, Z53),
    fd("STORSP_PLSRETFR", 76, U4, Z53),
    fd("STORSP_PLSRELFR", 80, U4, Z53),
    fd("STORSP_PLSALNCT", 84, U4, Z53),
    fd("STORSP_PLSSTLWT", 88, U4, Z53),
    fd("STORSP_PLSLTD1", 96, U4, Z53),
    fd("STORSP_PLSDORM1", 100, U4, Z53),
    fd("STORSP_PLSSHAR1", 108, U4, Z53),
    fd("STORSP_PLSELIG1", 112, U4, Z53),
    fd("STORSP_PLSDISP1", 116, U4, Z53),
    fd("STORSP_PLSLTD2", 120, U4, Z53),
    fd("STORSP_PLSDORM2", 124, U4, Z53),
    fd("STORSP_PLSELIG2", 128, U4, Z53),
    fd("STORSP_PLSDISP2", 132, U4, Z53),
    fd("STORSP_PLSSHARE", 136, U4, Z53),
    fd("STORSP_PLSDORME", 140, U4, Z53),
    fd("STORSP_PLSELIGE", 144, U4, Z53),
    fd("STORSP_PLSDISPE", 152, U4, Z53),
    fd("STORSP_PLSPGDRD", 236, U4, Z53),
    fd("STORSP_PLSPGDWT", 240, U4, Z53),
    fd("STORSP_PLSFGCTM", 296, Dur, Z53),
    fd("STORSP_PLSUPAGE", 324, U4, Z53),
    fd("STORSP_PLSVPAGE", 328, U4, Z53),
    fd("STORSP_PFXCPUTY", 360, U1, Z53),
];

static STOASP: &[FieldDef] = &[
    fd("STOASP_CALVSER", 20, Char(6), Z53),
    fd("STOASP_RDEVDEV", 26, U2, Z53),
    fd("STOASP_RDEVSID", 28, U4, Z53),
    fd("STOASP_CALSPOOL", 32, U4, Z53),
    fd("STOASP_CALPAGE", 36, U4, Z53),
    fd("STOASP_EXPCTSRD", 40, U4, Z53),
    fd("STOASP_EXPCTSWR", 44, U4, Z53),
    fd("STOASP_EXPCTPRD", 48, U4, Z53),
    fd("STOASP_EXPCTPWR", 52, U4, Z53),
    fd("STOASP_EXPCURQC", 56, U4, Z53),
    fd("STOASP_EXPCTACP", 60, U4, Z53),
    fd("STOASP_EXPCTUSI", 64, U4, Z53),
    fd("STOASP_SCMSSCH", 68, U2, Z53),
    fd("STOASP_CALFLAG1", 70, Bits(1), Ibm),
    fd("STOASP_RDEVDRAN", 71, U1, Z53),
    fd("STOASP_EXPCONT", 72, Bits(80), Z53),
    fd("STOASP_EXPDEVST", 152, U4, Z53),
    fd("STOASP_EXPMLOAD", 156, U4, Z53),
    fd("STOASP_CPVLOKAT", 160, U4, Z53),
    fd("STOASP_CPVALOCD", 164, U4, Z53),
    fd("STOASP_SCGSSCH", 168, U4, Z53),
];

static STOXSG: &[FieldDef] = &[
    fd("STOXSG_XSTMIGS", 20, U4, Z53),
    fd("STOXSG_XSTBLKDM", 24, U4, Z53),
    fd("STOXSG_XSTSUMAG", 28, U8, Z53),
    fd("STOXSG_XSTBLKCY", 36, U4, Z53),
    fd("STOXSG_XSTBLKSH", 40, U4, Z53),
    fd("STOXSG_XSTBLKSY", 44, U4, Z53),
    fd("STOXSG_XSTLOTHR", 48, U4, Z53),
    fd("STOXSG_XSTCYCLS", 52, U4, Z53),
    fd("STOXSG_XSTCPDAL", 56, U4, Z53),
    fd("STOXSG_XSTGUEST", 60, U4, Z53),
    fd("STOXSG_XSTNOIO", 64, U8, Z53),
];

static STOXSU: &[FieldDef] = &[
    fd("STOXSU_VMDUSER", 20, Char(8), Z53),
    fd("STOXSU_CALXSTOR", 28, U4, Z53),
    fd("STOXSU_CALORGIN", 32, U4, Z53),
    fd("STOXSU_CALXSLIM", 36, U4, Z53),
];

static PRCPRP: &[FieldDef] = &[
    fd("PRCPRP_PFXCPUAD", 20, U2, Ibm),
    fd("PRCPRP_PFXDSPCS", 84, U4, Z53),
    fd("PRCPRP_PLSDSPCM", 88, U4, Z53),
    fd("PRCPRP_DSVMAXUS", 92, U4, Z53),
    fd("PRCPRP_HFCOUNT", 96, U4, Z53),
    fd("PRCPRP_HFUSERZ", 100, U4, Z53),
    fd("PRCPRP_HFUSERC", 104, U4, Z53),
    fd("PRCPRP_CALUDED", 108, Char(8), Z53),
    fd("PRCPRP_PFXTYPE", 116, U4, Z53),
    fd("PRCPRP_HFUSERM", 120, U4, Z53),
    fd("PRCPRP_PLSSTLCT", 124, Bits(256), Z53),
    fd("PRCPRP_PFXCPUTY", 380, U1, Z53),
];

static IODVON: &[FieldDef] = &[
    fd("IODVON_RDEVTYPE", 20, U1, Ibm),
    fd("IODVON_RDEVCLAS", 21, U1, Ibm),
    fd("IODVON_RDEVDVID", 22, Bits(2), Ibm),
    fd("IODVON_CALMODLN", 24, U1, Z53),
    fd("IODVON_RDEVLPM", 25, Bits(1), Z53),
    fd("IODVON_RDEVDEV", 26, U2, Z53),
    fd("IODVON_RDEVSID", 28, U4, Z53),
    fd("IODVON_RDEVCHPS", 32, Bits(8), Z53),
    fd("IODVON_RDEVCUID", 40, Bits(2), Z53),
    fd("IODVON_RDEVCUMN", 42, U1, Z53),
    fd("IODVON_CALFLAGS", 43, Bits(1), Z53),
    fd("IODVON_RDEVSER", 46, Char(6), Z53),
    fd("IODVON_CALRDEVSID", 52, U4, Z53),
    fd("IODVON_CALRDEVDEV", 56, U2, Z53),
    fd("IODVON_RDEVPVFG", 58, Bits(1), Z53),
    fd("IODVON_EDEVTYPE", 59, U1, Z53),
    fd("IODVON_RDEVHPPL", 384, U2, Z53),
];

static IODMON: &[FieldDef] = &[
    fd("IODMON_RDEVSID", 20, U4, Ibm),
    fd("IODMON_RDEVDEV", 24, U2, Ibm),
];

static IODMOF: &[FieldDef] = &[
    fd("IODMOF_RDEVSID", 20, U4, Ibm),
    fd("IODMOF_RDEVDEV", 24, U2, Ibm),
    fd("IODMOF_SCMSSCH", 28, U2, Z53),
    fd("IODMOF_SCMCOUNT", 30, U2, Z53),
    fd("IODMOF_SCMCNTIM", 32, U4, Z53),
    fd("IODMOF_SCMFPTIM", 36, U4, Z53),
    fd("IODMOF_SCMDDTIM", 40, U4, Z53),
    fd("IODMOF_SCMCQTIM", 44, U4, Z53),
    fd("IODMOF_SCMDATIM", 48, U4, Z53),
    fd("IODMOF_SCMDBTIM", 52, U4, Z53),
    fd("IODMOF_SCMIRTIM", 56, U4, Z53),
    fd("IODMOF_SCGSSCH", 60, U4, Z53),
    fd("IODMOF_SCGCOUNT", 64, U4, Z53),
];

static IODMDV: &[FieldDef] = &[
    fd("IODMDV_RDEVSID", 20, U4, Ibm),
    fd("IODMDV_RDEVDEV", 24, U2, Ibm),
    fd("IODMDV_RDEVPIM", 26, Bits(1), Ibm),
    fd("IODMDV_RDEVPAM", 27, Bits(1), Ibm),
    fd("IODMDV_RDEVCHPS", 28, Bits(8), Ibm),
];
// MRIODQDA / MRIODQDS / MRIODQDD (domain 6 records 25, 26, 27): a real QDIO
// device (OSA, HiperSockets, FCP) whose queues CP shadows for a guest. IBM's
// pages (mon510, mon530, mon620, mon630, mon730) were read as far as the first
// fields: MRIODQDA's device, owner, virtual device, QDIO format (0 QDIO, 1 FCP,
// 2 HiperSockets), queue counts and status bits (mon510); MRIODQDD's device
// and SIGA counts by guest and by CP (mon510, mon520). MRIODQDS's body is
// taken to open like MRIODQDD's (same prolog notes, almost the same size);
// the byte and buffer counters after the SIGA counts are ztwin's INFERRED map.
static IODQDA: &[FieldDef] = &[
    fd("IODQDA_RDEVDEV", 20, U2, Ibm),
    fd("IODQDA_VMDUSER", 22, Char(8), Ibm),
    fd("IODQDA_VDEVDEV", 30, U2, Ibm),
    fd("IODQDA_QDIOFMT", 32, U2, Ibm),
    fd("IODQDA_QDINPCT", 34, U2, Ibm),
    fd("IODQDA_QDIOUTCT", 36, U2, Ibm),
    fd("IODQDA_STATUS", 38, Bits(1), Ibm),
];

macro_rules! qdio_counters {
    ($p:literal, $src:expr) => {
        [
            fd(concat!($p, "RDEVDEV"), 20, U2, $src),
            fd(concat!($p, "QDIOCSGR"), 24, U4, $src),
            fd(concat!($p, "QDIOCSGW"), 28, U4, $src),
            fd(concat!($p, "QDIOCSGS"), 32, U4, $src),
            fd(concat!($p, "RDEVVSSR"), 36, U4, $src),
            fd(concat!($p, "RDEVVSSW"), 40, U4, $src),
            fd(concat!($p, "VMDUSER"), 44, Char(8), Inf),
            fd(concat!($p, "QDIOFMT"), 52, U2, Inf),
            fd(concat!($p, "CHPID"), 54, U1, Inf),
            fd(concat!($p, "BUFSOUT"), 56, U8, Inf),
            fd(concat!($p, "BUFSIN"), 64, U8, Inf),
            fd(concat!($p, "BYTESOUT"), 72, U8, Inf),
            fd(concat!($p, "BYTESIN"), 80, U8, Inf),
        ]
    };
}

static IODQDS: [FieldDef; 13] = qdio_counters!("IODQDS_", Inf);
static IODQDD: [FieldDef; 13] = qdio_counters!("IODQDD_", Ibm);

// MRIODVSW (domain 6 record 21, sample): a VSWITCH's connection to the LAN
// through its uplink OSA, one record for the uplink's DATA device. IBM's
// pages (mon440: size 132; mon520: 140; mon610: 340; mon710, mon720: 492)
// were read as far as the first fields: RDEVSID, RDEVDEV, LANFSV (queue
// storage 1-8), LANIPTO (IP timeout in 30-second tics, 2-240). The rest is
// zpmd's d6r21 struct (marked TODO there; offsets packed after the header),
// whose first 140 bytes agree with IBM's 5.2 size; its LANID (owner and
// name of the LAN, 16 bytes at 184) only fits the 6.1 and later records.
macro_rules! iodvsw_fields {
    ($($extra:expr),*) => {
        [
            fd("IODVSW_RDEVSID", 20, U4, Ibm),
            fd("IODVSW_RDEVDEV", 24, U2, Ibm),
            fd("IODVSW_LANFSV", 26, U1, Ibm),
            fd("IODVSW_LANIPTO", 28, U2, Ibm),
            fd("IODVSW_LANRDD_OSAPORTN", 30, U1, Z53),
            fd("IODVSW_VMDUSER", 32, Char(8), Z53),
            fd("IODVSW_NICTXBYT", 40, U8, Z53),
            fd("IODVSW_NICRXBYT", 56, U8, Z53),
            fd("IODVSW_NICTXPKT", 72, U4, Z53),
            fd("IODVSW_NICTXDSC", 76, U4, Z53),
            fd("IODVSW_NICTXERR", 80, U4, Z53),
            fd("IODVSW_NICRXPKT", 84, U4, Z53),
            fd("IODVSW_NICRXDSC", 88, U4, Z53),
            fd("IODVSW_NICRXERR", 92, U4, Z53),
            fd("IODVSW_SIGWRITE", 104, U4, Z53),
            fd("IODVSW_SIGREAD", 108, U4, Z53),
            fd("IODVSW_SIGSYNC", 112, U4, Z53),
            fd("IODVSW_PCIRCVD", 120, U4, Z53),
            fd("IODVSW_PCIPROC", 124, U4, Z53),
            $($extra),*
        ]
    };
}
static IODVSW: [FieldDef; 19] = iodvsw_fields!();
static IODVSW61: [FieldDef; 20] = iodvsw_fields!(fd("IODVSW_LANID", 184, Char(16), Z53));

// MRSYTCUP: the zpmd 5.3 map, whose 64-byte fixed part matches the size IBM
// shows for 5.1, 5.2, 6.1 and 6.2. IBM names SYTCUP_CALCPUOF / CALCPULN as the
// way to find the SYTCUP_CPUDATA entries (one per logical CPU, or per core
// with multithreading from 6.3); their offsets are zpmd's.
static SYTCUP: &[FieldDef] = &[
    fd("SYTCUP_LCUPNAME", 20, Char(8), Z53),
    fd("SYTCUP_LCUPPNUM", 28, U1, Z53),
    fd("SYTCUP_CALFLGS", 29, Bits(1), Z53),
    fd("SYTCUP_LCUPCPCT", 30, U1, Z53),
    fd("SYTCUP_CALCPUOF", 32, U2, Z53),
    fd("SYTCUP_CALCPULN", 34, U2, Z53),
    fd("SYTCUP_LCUTCTOD", 36, Tod, Z53),
    fd("SYTCUP_LCPTYPE", 44, Char(16), Z53),
    fd("SYTCUP_LCXPUPID", 60, U1, Z53),
];
static SYTCUP_CPUDATA: &[FieldDef] = &[
    fd("SYTCUP_LCUCPUID", 0, U2, Z53),
    fd("SYTCUP_LCUCWGHT", 2, U2, Z53),
    fd("SYTCUP_LCUCFLGS", 4, Bits(1), Z53),
    fd("SYTCUP_LCUCACTM", 6, Dur, Z53),
    fd("SYTCUP_LCUCLPTM", 14, Dur, Z53),
    fd("SYTCUP_LCXCPTYP", 22, Char(16), Z53),
];
const SYTCUP_GROUP: GroupDef = GroupDef {
    name: "SYTCUP_CPUDATA",
    offset_field: "SYTCUP_CALCPUOF",
    len_field: "SYTCUP_CALCPULN",
    entry_size: 40,
    fields: SYTCUP_CPUDATA,
};

// MRMTRDDR: IBM's 7.3 and 7.5 pages start the record with the profile and the
// domain number; zpmd's 5.3 struct has eight more bytes first.
static MTRDDR_53: &[FieldDef] = &[
    fd("MTRDDR_REQUIRED", 20, Bits(8), Z53),
    fd("MTRDDR_PROFILE", 28, Char(1), Z53),
    fd("MTRDDR_DMNUMBER", 29, U1, Z53),
    fd("MTRDDR_DMSTATUS", 30, Bits(1), Z53),
    fd("MTRDDR_CALFLAGS", 31, Bits(1), Z53),
    fd("MTRDDR_DMITEMCT", 32, S4, Z53),
];
static MTRDDR_73: &[FieldDef] = &[
    fd("MTRDDR_PROFILE", 20, Char(1), Ibm),
    fd("MTRDDR_DMNUMBER", 21, U1, Ibm),
];

// MRMTRDEV: zpmd's 5.3 struct (the same device description as MRIODVON).
static MTRDEV: &[FieldDef] = &[
    fd("MTRDEV_RDEVTYPE", 20, U1, Z53),
    fd("MTRDEV_RDEVCLAS", 21, U1, Z53),
    fd("MTRDEV_RDEVDVID", 22, Bits(2), Z53),
    fd("MTRDEV_CALMODLN", 24, U1, Z53),
    fd("MTRDEV_RDEVLPM", 25, Bits(1), Z53),
    fd("MTRDEV_RDEVDEV", 26, U2, Z53),
    fd("MTRDEV_RDEVSID", 28, U4, Z53),
    fd("MTRDEV_RDEVCHPS", 32, Bits(8), Z53),
    fd("MTRDEV_RDEVCUID", 40, Bits(2), Z53),
    fd("MTRDEV_RDEVCUMN", 42, U1, Z53),
    fd("MTRDEV_CALFLAGS", 43, Bits(1), Z53),
    fd("MTRDEV_RDCRCUC", 44, U1, Z53),
    fd("MTRDEV_RDCOBRCO", 45, U1, Z53),
    fd("MTRDEV_RDEVSER", 46, Char(6), Z53),
    fd("MTRDEV_THRDLYS", 52, U4, Z53),
    fd("MTRDEV_THRIORTE", 56, U8, Z53),
    fd("MTRDEV_CALRDEVSID", 64, U4, Z53),
    fd("MTRDEV_CALRDEVDEV", 68, U2, Z53),
    fd("MTRDEV_RDEVPVFG", 70, Bits(1), Z53),
    fd("MTRDEV_EDEVTYPE", 71, U1, Z53),
    fd("MTRDEV_EDEVTABL", 72, Bits(8), Z53),
    fd("MTRDEV_PREFPATH", 400, U1, Z53),
    fd("MTRDEV_EDEVATTR", 401, Bits(1), Z53),
    fd("MTRDEV_RDEVHPPL", 402, U2, Z53),
    fd("MTRDEV_CALDEVFLAGS", 404, Bits(4), Z53),
];

// MRMTRMEM: RSASTORE, SYSTORS and SYSTRAC are on IBM's 6.4 and 7.2 pages
// (28 and 32 reserved there); the rest is zpmd's 5.3 struct. IBM calls
// RSAGSTOR (64-bit real storage) the preferred field.
static MTRMEM: &[FieldDef] = &[
    fd("MTRMEM_RSASTORE", 20, U4, Ibm),
    fd("MTRMEM_SYSTORS", 24, U4, Ibm),
    fd("MTRMEM_SYSTRAC", 36, U4, Ibm),
    fd("MTRMEM_HCPMM1", 40, U4, Z53),
    fd("MTRMEM_HCPMM4", 44, U4, Z53),
    fd("MTRMEM_RSAPGABL", 48, U4, Z53),
    fd("MTRMEM_RSANONPG", 52, U4, Z53),
    fd("MTRMEM_RSAOFFLN", 56, U4, Z53),
    fd("MTRMEM_SYSTRCPC", 64, U2, Z53),
    fd("MTRMEM_FLG1", 66, Bits(1), Z53),
    fd("MTRMEM_HCPMM0", 68, U4, Z53),
    fd("MTRMEM_HCPSYS", 72, U4, Z53),
    fd("MTRMEM_CALSCMAX", 76, U4, Z53),
    fd("MTRMEM_SYSSCMEX", 80, U4, Z53),
    fd("MTRMEM_SYSGTORS", 84, U8, Z53),
    fd("MTRMEM_RSAGSTOR", 92, U8, Z53),
    fd("MTRMEM_RSAGOFFL", 100, U8, Z53),
    fd("MTRMEM_RSALGFRM", 108, U8, Z53),
    fd("MTRMEM_SXSSIZE", 116, U4, Z53),
    fd("MTRMEM_PFXSTLEN", 120, U8, Z53),
    fd("MTRMEM_PFXFTLEN", 128, U8, Z53),
    fd("MTRMEM_RSAFNOTI", 136, U8, Z53),
];

// MRMTRPAG: 20-39 on IBM's 5.4, 6.4, 7.1, 7.2 and 7.4 pages; RDEVSID and
// RDEVDEV from zpmd (they fill the 48 bytes IBM gives for 5.4 and 6.4). From
// 7.2 IBM marks CALCYLNO and CALSTART deprecated in favour of 64-bit fields
// (CALCYLNOG, CALSTARTG) whose offsets were not visible.
// Saved segments (NSS/DCSS/segment spaces): IBM's pages, as far as they could
// be read (their openings).
static SYTSHS: &[FieldDef] = &[
    fd("SYTSHS_SYSTANSS", 20, U4, Ibm),
    fd("SYTSHS_SYSTADCS", 24, U4, Ibm),
    fd("SYTSHS_RSASHARE", 28, U4, Ibm),
];

static STOSHR: &[FieldDef] = &[
    fd("STOSHR_SNTNAME", 20, Char(8), Ibm),
    fd("STOSHR_SDFIDNUM", 28, S2, Ibm),
    fd("STOSHR_SDFCLTIM", 32, U4, Ibm),
    fd("STOSHR_SNTUSRSH", 36, U2, Ibm),
    fd("STOSHR_SNTUSREX", 38, U2, Ibm),
    fd("STOSHR_ASCCTPRS", 40, U4, Ibm),
];

static STOSHS: &[FieldDef] = &[
    fd("STOSHS_SDFFN", 20, Char(8), Ibm),
    fd("STOSHS_SDFFT", 28, Char(8), Ibm),
    fd("STOSHS_SDFCLTIM", 36, U4, Ibm),
    fd("STOSHS_SDFIDNUM", 40, S2, Ibm),
];

// MRSTOASI (domain 3 record 14): one record per system-owned address space
// holding a virtual disk in storage (what Performance Toolkit's FCX147
// VDISKS lists). IBM's map was not in the sources read: the record's number
// and name are as recalled and every field is INFERRED (ASCUSRID and ASCNAME
// are the ASCBK's space identification; the counts are ztwin's choice).
static STOASI: &[FieldDef] = &[
    fd("STOASI_ASCUSRID", 20, Char(8), Inf),
    fd("STOASI_ASCNAME", 28, Char(24), Inf),
    fd("STOASI_ASCCTPRS", 52, U4, Inf),
    fd("STOASI_ASCCTPXS", 56, U4, Inf),
    fd("STOASI_ASCCTPDS", 60, U4, Inf),
    fd("STOASI_VDIBLKS", 64, U4, Inf),
    fd("STOASI_VDIIOCNT", 68, U4, Inf),
    fd("STOASI_VDIPGRD", 72, U4, Inf),
    fd("STOASI_VDIPGWT", 76, U4, Inf),
    fd("STOASI_VDIFAULT", 80, U4, Inf),
    fd("STOASI_VDISPIN", 84, Dur, Inf),
];

// MRSTOSHL's fields are not on the pages read: the same file identification
// as STOSHS and STOSHD is assumed.
static STOSHL: &[FieldDef] = &[
    fd("STOSHL_SDFFN", 20, Char(8), Inf),
    fd("STOSHL_SDFFT", 28, Char(8), Inf),
    fd("STOSHL_SDFCLTIM", 36, U4, Inf),
    fd("STOSHL_SDFIDNUM", 40, S2, Inf),
];

static STOSHD: &[FieldDef] = &[
    fd("STOSHD_SDFFN", 20, Char(8), Ibm),
    fd("STOSHD_SDFFT", 28, Char(8), Ibm),
    fd("STOSHD_SDFCLTIM", 36, U4, Ibm),
    fd("STOSHD_SDFIDNUM", 40, S2, Inf),
];

static MTRPAG: &[FieldDef] = &[
    fd("MTRPAG_CPVOLSER", 20, Char(6), Ibm),
    fd("MTRPAG_RDCPCYL", 26, U1, Ibm),
    fd("MTRPAG_CALFLAGS", 27, Bits(1), Ibm),
    fd("MTRPAG_CALTYPE", 28, Char(4), Ibm),
    fd("MTRPAG_CALCYLNO", 32, U4, Ibm),
    fd("MTRPAG_CALSTART", 36, U4, Ibm),
    fd("MTRPAG_RDEVSID", 40, U4, Z53),
    fd("MTRPAG_RDEVDEV", 44, U2, Z53),
];

// MRMTRUSR: VMDUSER and VMDCPUAD on IBM's 4.4 and 6.2 pages; the rest zpmd.
static MTRUSR: &[FieldDef] = &[
    fd("MTRUSR_VMDUSER", 20, Char(8), Ibm),
    fd("MTRUSR_VMDCPUAD", 28, U2, Ibm),
    fd("MTRUSR_VMDMODE", 30, Bits(1), Z53),
    fd("MTRUSR_VMDCPUCT", 31, U1, Z53),
    fd("MTRUSR_CALSTAT", 32, Bits(1), Z53),
    fd("MTRUSR_CALMODE", 33, Bits(1), Z53),
    fd("MTRUSR_VMDSTYPE", 34, U1, Z53),
    fd("MTRUSR_CALSHARF", 35, Bits(1), Z53),
    fd("MTRUSR_VMDRELSH", 36, U4, Z53),
    fd("MTRUSR_VMDABSSH", 40, U4, Z53),
    fd("MTRUSR_VMDSSIZE", 44, U4, Z53),
    fd("MTRUSR_VMDACTNO", 48, Char(8), Z53),
    fd("MTRUSR_VMDGRPN", 56, Char(8), Z53),
    fd("MTRUSR_VMDMXRVP", 64, U4, Z53),
    fd("MTRUSR_CALTODON", 68, Tod, Z53),
    fd("MTRUSR_VMDBYVAL", 76, Char(8), Z53),
    fd("MTRUSR_VMDMXSHR", 84, U4, Z53),
    fd("MTRUSR_ASCDEFSZ", 88, U8, Z53),
    fd("MTRUSR_CALDEFHI", 96, U4, Z53),
    fd("MTRUSR_CALDEFLO", 100, U4, Z53),
    fd("MTRUSR_CALCPCT", 104, U4, Z53),
    fd("MTRUSR_CALZIPCT", 108, U4, Z53),
    fd("MTRUSR_CALZAPCT", 112, U4, Z53),
    fd("MTRUSR_CALIFLCT", 116, U4, Z53),
    fd("MTRUSR_VMDCFGEM", 120, U1, Z53),
    fd("MTRUSR_VMDPUST", 121, U1, Z53),
];

// ---------------------------------------------------------------- domain 4
// MRUSELON: 20-31 on IBM's 4.3, 5.3, 5.4, 6.2 and 6.4 pages (CALSTAT X'40' is
// VMDQDSPU, QUICKDSP); 32-95 zpmd (ending at the 96 bytes IBM gives for 5.3).
static USELON_53: &[FieldDef] = &[
    fd("USELON_VMDUSER", 20, Char(8), Ibm),
    fd("USELON_VMDCPUAD", 28, U2, Ibm),
    fd("USELON_VMDMODE", 30, Bits(1), Ibm),
    fd("USELON_CALSTAT", 31, Bits(1), Ibm),
    fd("USELON_VMDRELSH", 32, U4, Z53),
    fd("USELON_VMDABSSH", 36, U4, Z53),
    fd("USELON_CALMODE", 40, Bits(1), Z53),
    fd("USELON_VMDSTYPE", 41, U1, Z53),
    fd("USELON_CALSHARF", 42, Bits(1), Z53),
    fd("USELON_VMDSSIZE", 44, U4, Z53),
    fd("USELON_VMDMXRVP", 48, U4, Z53),
    fd("USELON_VMDACTNO", 52, Char(8), Z53),
    fd("USELON_VMDGRPN", 60, Char(8), Z53),
    fd("USELON_CALTODON", 68, Tod, Z53),
    fd("USELON_VMDBYVAL", 76, Char(8), Z53),
    fd("USELON_VMDMXSHR", 84, U4, Z53),
    fd("USELON_ASCDEFSZ", 88, U8, Z53),
];
// From 5.4 (176 bytes): zpmd's struct continues with CALDEFHI/CALDEFLO beyond
// the 96 bytes of 5.3; placed first in the appended part (inferred).
static USELON_54: &[FieldDef] = &[
    fd("USELON_VMDUSER", 20, Char(8), Ibm),
    fd("USELON_VMDCPUAD", 28, U2, Ibm),
    fd("USELON_VMDMODE", 30, Bits(1), Ibm),
    fd("USELON_CALSTAT", 31, Bits(1), Ibm),
    fd("USELON_VMDRELSH", 32, U4, Z53),
    fd("USELON_VMDABSSH", 36, U4, Z53),
    fd("USELON_CALMODE", 40, Bits(1), Z53),
    fd("USELON_VMDSTYPE", 41, U1, Z53),
    fd("USELON_CALSHARF", 42, Bits(1), Z53),
    fd("USELON_VMDSSIZE", 44, U4, Z53),
    fd("USELON_VMDMXRVP", 48, U4, Z53),
    fd("USELON_VMDACTNO", 52, Char(8), Z53),
    fd("USELON_VMDGRPN", 60, Char(8), Z53),
    fd("USELON_CALTODON", 68, Tod, Z53),
    fd("USELON_VMDBYVAL", 76, Char(8), Z53),
    fd("USELON_VMDMXSHR", 84, U4, Z53),
    fd("USELON_ASCDEFSZ", 88, U8, Z53),
    fd("USELON_CALDEFHI", 96, U4, Inf),
    fd("USELON_CALDEFLO", 100, U4, Inf),
];

/// The body shared by MRUSELOF and MRUSEACT after the virtual CPU address, in
/// the order of zpmd's 5.3 USELOF struct. That struct declares the two
/// reserved fields after VMDVTIME as single bytes and does not compile; they
/// are taken as 8 bytes each, as in zpmd's USEATE (the same family of fields),
/// so every offset from 68 on is inferred.
macro_rules! vmd_body {
    ($p:literal, $src32:expr, $zpmd:expr) => {
        [
            fd(concat!($p, "VMDSLIST"), 32, Bits(1), $src32),
            fd(concat!($p, "VMDELIST"), 33, Bits(1), $zpmd),
            fd(concat!($p, "CALFLAG1"), 34, Bits(1), $zpmd),
            fd(concat!($p, "VMDSTYPE"), 35, U1, $zpmd),
            fd(concat!($p, "VMDTTIME"), 36, Dur, $zpmd),
            fd(concat!($p, "VMDVTIME"), 44, Dur, $zpmd),
            fd(concat!($p, "VMDCTPVR"), 68, U4, Inf),
            fd(concat!($p, "VMDCTPVL"), 72, U4, Inf),
            fd(concat!($p, "VMDWSSPR"), 76, U4, Inf),
            fd(concat!($p, "VMDCTXBK"), 80, U4, Inf),
            fd(concat!($p, "CALXSTOR"), 84, U4, Inf),
            fd(concat!($p, "VMDCTFLT"), 88, U4, Inf),
            fd(concat!($p, "VMDFLREO"), 96, U4, Inf),
            fd(concat!($p, "VMDCTORF"), 100, U4, Inf),
            fd(concat!($p, "CALCTPGS"), 104, U4, Inf),
            fd(concat!($p, "VMDCTPWT"), 108, U4, Inf),
            fd(concat!($p, "CALCPPGR"), 112, U4, Inf),
            fd(concat!($p, "CALCPPGW"), 116, U4, Inf),
            fd(concat!($p, "VMDCTSPR"), 120, U4, Inf),
            fd(concat!($p, "VMDCTSPW"), 124, U4, Inf),
            fd(concat!($p, "VMDPGSPL"), 128, U4, Inf),
            fd(concat!($p, "VMDVCSCT"), 132, U4, Inf),
            fd(concat!($p, "VMDVDSCT"), 136, U4, Inf),
            fd(concat!($p, "VMDVUSCT"), 140, U4, Inf),
            fd(concat!($p, "VMDVTSCT"), 144, U4, Inf),
            fd(concat!($p, "VMDVOSCT"), 148, U4, Inf),
            fd(concat!($p, "CALCPPST"), 152, U4, Inf),
            fd(concat!($p, "VMDISEVM"), 156, U4, Inf),
            fd(concat!($p, "VMDISTVM"), 160, U4, Inf),
            fd(concat!($p, "VMDISUVM"), 164, U4, Inf),
            fd(concat!($p, "VMDVSEVM"), 168, U4, Inf),
            fd(concat!($p, "VMDVSTVM"), 172, U4, Inf),
            fd(concat!($p, "VMDVSUVM"), 176, U4, Inf),
            fd(concat!($p, "VMDX98CT"), 180, U4, Inf),
            fd(concat!($p, "CALCPMIG"), 184, U4, Inf),
            fd(concat!($p, "CALCPXWT"), 188, U4, Inf),
            fd(concat!($p, "CALCPXRD"), 192, U4, Inf),
            fd(concat!($p, "VMDASMCT"), 196, U2, Inf),
            fd(concat!($p, "CALSHARF"), 198, Bits(1), Inf),
            fd(concat!($p, "CALOSTAT"), 199, Bits(1), Inf),
            fd(concat!($p, "VMDBLKCT"), 200, U4, Inf),
            fd(concat!($p, "VMDMDCIA"), 204, U4, Inf),
            fd(concat!($p, "VMDCOPCT"), 208, U4, Inf),
            fd(concat!($p, "VMDCTISO"), 212, U4, Inf),
            fd(concat!($p, "VMDRELSH"), 216, U4, Inf),
            fd(concat!($p, "VMDABSSH"), 220, U4, Inf),
            fd(concat!($p, "VMDSSIZE"), 224, U4, Inf),
            fd(concat!($p, "VMDMXRVP"), 228, U4, Inf),
            fd(concat!($p, "VMDACTNO"), 232, Char(8), Inf),
            fd(concat!($p, "VMDGRPN"), 240, Char(8), Inf),
            fd(concat!($p, "CALTODON"), 248, Tod, Inf),
            fd(concat!($p, "VMDVDISK"), 256, U4, Inf),
            fd(concat!($p, "VMDMXSHR"), 260, U4, Inf),
            fd(concat!($p, "VMDTHRCT"), 264, U4, Inf),
            fd(concat!($p, "ASCDEFSZ"), 268, U8, Inf),
            fd(concat!($p, "CALDEFHI"), 276, U4, Inf),
            fd(concat!($p, "CALDEFLO"), 280, U4, Inf),
            fd(concat!($p, "VMDCTPVG"), 284, U4, Inf),
            fd(concat!($p, "VMDMVB2G"), 288, U4, Inf),
            fd(concat!($p, "VEBALERT"), 292, U4, Inf),
            fd(concat!($p, "VEBTVSCT"), 296, U4, Inf),
            fd(concat!($p, "VEBSVSCT"), 300, U4, Inf),
            fd(concat!($p, "VEBTPIAI"), 304, U4, Inf),
            fd(concat!($p, "VEBVIRAI"), 308, U4, Inf),
            fd(concat!($p, "VEBHDWAI"), 312, U4, Inf),
            fd(concat!($p, "VMDCTPVLA"), 316, U8, Inf),
            fd(concat!($p, "VMDCTSHL"), 324, U4, Inf),
            fd(concat!($p, "VMDCTSHLA"), 328, U8, Inf),
            fd(concat!($p, "VMDPUTYP"), 336, U1, Inf),
            fd(concat!($p, "VMDVTMP"), 340, Dur, Inf),
            fd(concat!($p, "VMDTTMP"), 348, Dur, Inf),
            fd(concat!($p, "VMDVTMS"), 356, Dur, Inf),
            fd(concat!($p, "VMDTTMS"), 364, Dur, Inf),
        ]
    };
}

/// `head` followed by `body` (const array concatenation).
const fn join<const A: usize, const B: usize, const N: usize>(
    head: [FieldDef; A],
    body: [FieldDef; B],
) -> [FieldDef; N] {
    let mut out = [head[0]; N];
    let mut i = 0;
    while i < A {
        out[i] = head[i];
        i += 1;
    }
    while i < N {
        out[i] = body[i - A];
        i += 1;
    }
    out
}

// MRUSELOF: 20-31 on IBM's 4.3, 5.4 and 6.2 pages (one record per virtual CPU
// from 5.4; 4.3 wrote the base VMDBK only); 32-51 zpmd; the rest inferred as
// described at `vmd_body`.
static USELOF: [FieldDef; 77] = join(
    [
        fd("USELOF_VMDUSER", 20, Char(8), Ibm),
        fd("USELOF_VMDCPUAD", 28, U2, Ibm),
        fd("USELOF_VMDMODE", 30, Bits(1), Ibm),
        fd("USELOF_CALMODE", 31, Bits(1), Ibm),
    ],
    vmd_body!("USELOF_", Z53, Z53),
);

// MRUSEACT: 20-32 on IBM's 6.1 and 6.2 pages (VMDSLIST at 32, where the 5.3
// USEATE map has VMDTTIME, so USEATE is not the template). IBM's USEACT
// matches zpmd's USELOF at every offset both show, so the rest follows the
// USELOF order (`vmd_body`), inferred.
static USEACT: [FieldDef; 77] = join(
    [
        fd("USEACT_VMDUSER", 20, Char(8), Ibm),
        fd("USEACT_VMDCPUAD", 28, U2, Ibm),
        fd("USEACT_VMDMODE", 30, Bits(1), Ibm),
        fd("USEACT_CALMODE", 31, Bits(1), Ibm),
    ],
    vmd_body!("USEACT_", Ibm, Inf),
);

// MRUSEINT: IBM's 5.1 page names the high-frequency counters (USEINT_HF...)
// and says one record is written per VMDBK; no offset was visible. The z/VM
// 5.3 USEITE map (zpmd), which carries the same counters, is the template.
static USEINT: &[FieldDef] = &[
    fd("USEINT_VMDUSER", 20, Char(8), Inf),
    fd("USEINT_VMDCPUAD", 28, U2, Inf),
    fd("USEINT_VMDSLCNT", 30, S2, Inf),
    fd("USEINT_VMDSVMFX", 32, U4, Inf),
    fd("USEINT_VMDSVMID", 36, Char(8), Inf),
    fd("USEINT_VMDSVMWT", 44, Bits(1), Inf),
    fd("USEINT_VMDSVMW2", 45, Bits(1), Inf),
    fd("USEINT_VMDRDYCM", 46, Bits(1), Inf),
    fd("USEINT_CALFLAG1", 47, Bits(1), Inf),
    fd("USEINT_HFQUCT", 48, U4, Inf),
    fd("USEINT_HFDISP0", 52, U4, Inf),
    fd("USEINT_HFDISP1", 56, U4, Inf),
    fd("USEINT_HFDISP2", 60, U4, Inf),
    fd("USEINT_HFDISP3", 64, U4, Inf),
    fd("USEINT_HFELIG0", 68, U4, Inf),
    fd("USEINT_HFELIG1", 72, U4, Inf),
    fd("USEINT_HFELIG2", 76, U4, Inf),
    fd("USEINT_HFELIG3", 80, U4, Inf),
    fd("USEINT_HFSTCT", 84, U4, Inf),
    fd("USEINT_HFTIDL", 88, U4, Inf),
    fd("USEINT_HFTSVM", 92, U4, Inf),
    fd("USEINT_HFIOWT", 96, U4, Inf),
    fd("USEINT_HFCFWT", 100, U4, Inf),
    fd("USEINT_HFSIMWT", 104, U4, Inf),
    fd("USEINT_HFWTPAG", 108, U4, Inf),
    fd("USEINT_HFCPUWT", 112, U4, Inf),
    fd("USEINT_HFCPURN", 116, U4, Inf),
    fd("USEINT_HFESVM", 120, U4, Inf),
    fd("USEINT_HFLOAD", 124, U4, Inf),
    fd("USEINT_HFDORM", 128, U4, Inf),
    fd("USEINT_HFDSVM", 132, S4, Inf),
    fd("USEINT_HFOTHR", 136, U4, Inf),
    fd("USEINT_VMDCNTID", 140, U2, Inf),
    fd("USEINT_VMDCTIDL", 142, U2, Inf),
    fd("USEINT_VMDDFRWK", 144, U4, Inf),
    fd("USEINT_VMDSTATE", 148, Bits(1), Inf),
    fd("USEINT_CALOSTAT", 149, Bits(1), Inf),
    fd("USEINT_CALRSTAT", 150, Bits(1), Inf),
    fd("USEINT_HFIOACT", 184, U4, Inf),
    fd("USEINT_HFLLIST", 188, U4, Inf),
    fd("USEINT_HFPGACT", 192, U4, Inf),
    fd("USEINT_VMDPUTYP", 196, U1, Inf),
];

// ---------------------------------------------------------------- domain 6
static IODVOF: &[FieldDef] = &[
    fd("IODVOF_RDEVSID", 20, U4, Z53),
    fd("IODVOF_RDEVDEV", 24, U2, Z53),
];

// MRIODDEV: zpmd's 5.3 struct. It is marked "TODO" there and has no 20-byte
// header filler (every other struct has one); the offsets below add the
// header. IBM's pages (6.2, 6.4) could only be read as far as the prolog,
// which confirms the kinds of data (RDEV counters, IODDEV_HF high-frequency
// counters, SCM facility data, SIE assist data valid per IODDEV_VDEVIOP1) but
// no offset.
static IODDEV: &[FieldDef] = &[
    fd("IODDEV_RDEVAFLG", 20, Bits(1), Z53),
    fd("IODDEV_RDEVLPM", 21, Bits(1), Z53),
    fd("IODDEV_VDEVIOP1", 22, Bits(1), Z53),
    fd("IODDEV_CALFLAG1", 23, Bits(1), Z53),
    fd("IODDEV_RDEVSID", 24, U4, Z53),
    fd("IODDEV_RDEVCHPS", 28, Bits(8), Z53),
    fd("IODDEV_RDEVSER", 36, Char(6), Z53),
    fd("IODDEV_CALUSER", 42, Char(8), Z53),
    fd("IODDEV_RDEVLCNT", 50, U2, Z53),
    fd("IODDEV_SCMSSCH", 52, U2, Z53),
    fd("IODDEV_SCMCOUNT", 54, U2, Z53),
    fd("IODDEV_SCMCNTIM", 56, U4, Z53),
    fd("IODDEV_SCMFPTIM", 60, U4, Z53),
    fd("IODDEV_SCMDDTIM", 64, U4, Z53),
    fd("IODDEV_HFRDEVCT", 68, U4, Z53),
    fd("IODDEV_HFCTIO", 72, U4, Z53),
    fd("IODDEV_RDEVCTSR", 76, U4, Z53),
    fd("IODDEV_RDEVRCWH", 80, U4, Z53),
    fd("IODDEV_RDEVRCWP", 84, U4, Z53),
    fd("IODDEV_RDEVRTPD", 88, U8, Z53),
    fd("IODDEV_RDEVCTSI", 96, U4, Z53),
    fd("IODDEV_RDEVCTUI", 100, U4, Z53),
    fd("IODDEV_RDEVMICT", 104, U4, Z53),
    fd("IODDEV_RDEVCTRG", 108, U4, Z53),
    fd("IODDEV_RDEVCTRD", 112, U4, Z53),
    fd("IODDEV_RDEVSKCT", 116, U4, Z53),
    fd("IODDEV_RDEVSKSM", 120, U4, Z53),
    fd("IODDEV_RDEVWRCT", 124, U4, Z53),
    fd("IODDEV_RDEVRDCT", 128, U4, Z53),
    fd("IODDEV_RDEVMCIA", 132, U4, Z53),
    fd("IODDEV_VIUCNTIN", 136, U4, Z53),
    fd("IODDEV_VIUTIMIN", 140, U4, Z53),
    fd("IODDEV_VIUCNTLV", 144, U4, Z53),
    fd("IODDEV_VIUTIMLV", 148, U4, Z53),
    fd("IODDEV_VIUCNTOT", 152, U4, Z53),
    fd("IODDEV_VIUTIMOT", 156, U4, Z53),
    fd("IODDEV_SCMDATIM", 160, U4, Z53),
    fd("IODDEV_VIUSTAMP", 164, Tod, Z53),
    fd("IODDEV_VIUSTATE", 172, Bits(1), Z53),
    fd("IODDEV_THRDLYS", 176, U4, Z53),
    fd("IODDEV_SCMCQTIM", 180, U4, Z53),
    fd("IODDEV_SCMDBTIM", 184, U4, Z53),
    fd("IODDEV_SCMIRTIM", 188, U4, Z53),
    fd("IODDEV_SCGSSCH", 192, U4, Z53),
    fd("IODDEV_SCGCOUNT", 196, U4, Z53),
    fd("IODDEV_RDEVDEV", 200, U2, Z53),
    fd("IODDEV_EDEVTYPE", 204, U1, Z53),
    fd("IODDEV_PREFPATH", 205, U1, Z53),
    fd("IODDEV_PAVINELG", 208, U4, Z53),
    fd("IODDEV_PAVUSES", 212, U4, Z53),
    fd("IODDEV_RDEVPVFG", 216, Bits(1), Z53),
    fd("IODDEV_RDEVHPPL", 218, U2, Z53),
    fd("IODDEV_PAVSSCH", 220, U4, Z53),
    fd("IODDEV_PAVCOUNT", 224, U4, Z53),
    fd("IODDEV_PAVCNTIM", 228, U4, Z53),
    fd("IODDEV_PAVFPTIM", 232, U4, Z53),
    fd("IODDEV_PAVDDTIM", 236, U4, Z53),
    fd("IODDEV_PAVCQTIM", 240, U4, Z53),
    fd("IODDEV_PAVDATIM", 244, U4, Z53),
    fd("IODDEV_PAVDBTIM", 248, U4, Z53),
    fd("IODDEV_PAVIRTIM", 252, U4, Z53),
    fd("IODDEV_PAVCC3S", 256, U4, Z53),
];

// ---------------------------------------------------------------- domain 10
// MRAPLEDT (D10R1, event: application monitoring ended for a buffer) and
// MRAPLSDT (D10R2, sample: the buffer's data at each interval). IBM's pages
// (mon440, mon540, mon620/640) give the 52-byte fixed part (APLxDT_APHDR = the
// record header and the application header), name APLxDT_CALDATOF as the one
// way to find the data (APLxDT_ADATA) and say the record holds the product
// identification, release, user ID and data offset; the offsets of those
// fields inside the header were not in the parts read: INFERRED. The data
// itself (the Linux kernel's appldata structs) is mapped in `crate::appldata`.
static APLEDT: &[FieldDef] = &[
    fd("APLEDT_USERID", 20, Char(8), Inf),
    fd("APLEDT_CALDATOF", 28, U2, Inf),
    fd("APLEDT_PRODID", 32, Bits(16), Inf),
];
static APLSDT: &[FieldDef] = &[
    fd("APLSDT_USERID", 20, Char(8), Inf),
    fd("APLSDT_CALDATOF", 28, U2, Inf),
    fd("APLSDT_PRODID", 32, Bits(16), Inf),
];

// ------------------------------------------------------------ the I/O path
// (records the path model writes; see docs/monitor-format.md, "I/O records")

// MRIODCAD: IBM's 4.4, 6.1 and 6.2 pages give the size (264), RDEVSID and
// STATUS (the code for what IODCAD_CALDATA holds, -2 "no data"); the
// CALDATA counters below are ztwin's reading of a cached control unit's
// subsystem statistics (3990-3/-6, 2105), one U4 each: normal and sequential
// read requests and hits, write requests, DASD fast writes done at once and
// delayed (NVS full), I/Os that bypassed the cache, tracks staged.
static IODCAD: &[FieldDef] = &[
    fd("IODCAD_RDEVSID", 20, U4, Ibm),
    fd("IODCAD_STATUS", 24, S4, Ibm),
    fd("IODCAD_NRDREQ", 28, U4, Inf),
    fd("IODCAD_NRDHIT", 32, U4, Inf),
    fd("IODCAD_SQRDREQ", 36, U4, Inf),
    fd("IODCAD_SQRDHIT", 40, U4, Inf),
    fd("IODCAD_WRTREQ", 44, U4, Inf),
    fd("IODCAD_DFWHIT", 48, U4, Inf),
    fd("IODCAD_DFWDLY", 52, U4, Inf),
    fd("IODCAD_BYPASS", 56, U4, Inf),
    fd("IODCAD_STAGED", 60, U4, Inf),
    fd("IODCAD_RDEVDEV", 64, U2, Inf),
];

// MRIODSZI: IBM's 5.3, 6.3 and 7.1 pages (size 316; RDEVDEV at 20, the
// 36-byte DKSTAT block from 24: status X'80' busy / X'40' not busy, time,
// transfer rate in KB/s, block size). The block is CP's SZQBK disk statistics
// (IBM cp640 SZQBK: status, time, rate, block size, then transfers, blocks
// read, blocks written, seeks, queue depth, four bytes each), which places
// DSKXFERS..DSKQDEPTH at 40-56; zpmd's 5.3 struct for the eight 32-byte path
// blocks from 60.
static IODSZI: &[FieldDef] = &[
    fd("IODSZI_RDEVDEV", 20, U2, Ibm),
    fd("IODSZI_DSKSTAT", 24, Bits(1), Ibm),
    fd("IODSZI_DSKTIME", 28, U4, Ibm),
    fd("IODSZI_DSKXRATE", 32, U4, Ibm),
    fd("IODSZI_DSKBLKSZ", 36, U4, Ibm),
    fd("IODSZI_DSKXFERS", 40, U4, Z53),
    fd("IODSZI_DSKBLKSR", 44, U4, Z53),
    fd("IODSZI_DSKBLKSW", 48, U4, Z53),
    fd("IODSZI_DSKSEEKO", 52, U4, Z53),
    fd("IODSZI_DSKQDEPTH", 56, U4, Z53),
    fd("IODSZI_PTH1ID", 60, U2, Z53),
    fd("IODSZI_PTH1STAT", 62, Bits(1), Z53),
    fd("IODSZI_PTH1TIME", 64, U4, Z53),
    fd("IODSZI_PTH1XRATE", 68, U4, Z53),
    fd("IODSZI_PTH1XFERS", 72, U4, Z53),
    fd("IODSZI_PTH1BLKSR", 76, U4, Z53),
    fd("IODSZI_PTH1BLKSW", 80, U4, Z53),
    fd("IODSZI_PTH1SEEKO", 84, U4, Z53),
    fd("IODSZI_PTH1QDEPTH", 88, U4, Z53),
    fd("IODSZI_PTH2ID", 92, U2, Z53),
    fd("IODSZI_PTH2STAT", 94, Bits(1), Z53),
    fd("IODSZI_PTH2TIME", 96, U4, Z53),
    fd("IODSZI_PTH2XRATE", 100, U4, Z53),
    fd("IODSZI_PTH2XFERS", 104, U4, Z53),
    fd("IODSZI_PTH2BLKSR", 108, U4, Z53),
    fd("IODSZI_PTH2BLKSW", 112, U4, Z53),
    fd("IODSZI_PTH2SEEKO", 116, U4, Z53),
    fd("IODSZI_PTH2QDEPTH", 120, U4, Z53),
];

// MRIODHPP: IBM's mon610 and mon630 pages give domain 6 record 28 "HyperPAV
// Pool activity", size 48, and the pool number and token (the LCU's SSID) that
// start it, as in MRIODHPC (mon530-mon640: HPPOOLNM at 20, HPPTOKEN at 22);
// zpmd's 5.3 struct for the rest: bases and aliases in the pool, attempts to
// get an alias and those that found none, fewest and most aliases free.
static IODHPP: &[FieldDef] = &[
    fd("IODHPP_HPPOOLNM", 20, U2, Ibm),
    fd("IODHPP_HPPTOKEN", 22, U2, Ibm),
    fd("IODHPP_HPPNBASE", 24, U4, Z53),
    fd("IODHPP_HPPNALIS", 28, U4, Z53),
    fd("IODHPP_HPPTRIES", 32, U4, Z53),
    fd("IODHPP_HPPFAILS", 36, U4, Z53),
    fd("IODHPP_HPPMINCT", 40, U4, Z53),
    fd("IODHPP_HPPMAXCT", 44, U4, Z53),
];

// MRMTRHPP: zpmd's 5.3 struct (size 24): a HyperPAV pool's number and token.
static MTRHPP: &[FieldDef] = &[
    fd("MTRHPP_HPPOOLNM", 20, U2, Z53),
    fd("MTRHPP_HPPTOKEN", 22, U2, Z53),
];

// MRSYTEPM: IBM's MRSYTCPC and MRSYTCPM pages point to this record (domain
// 0, record 20) for channel-path utilisation with the extended channel-path
// measurement facility, and describe the family's shape (an offset field to
// the data, one entry per channel path, an invalid bit per entry, entries
// built on the channel subsystem's schedule, each with its own time stamp);
// its offsets were not seen. ztwin's reading: a fixed part with the offset,
// length and count of the entries, then per CHPID its number, measurement
// group (1 ESCON-like, 2 FICON), flags (X'80' entry not valid), path type,
// the time stamp, and busy time (all partitions; this partition, as TOD
// durations), this partition's data units (bytes / 32) and work units (I/Os).
static SYTEPM: &[FieldDef] = &[
    fd("SYTEPM_CALOFFST", 20, U2, Inf),
    fd("SYTEPM_CALENTLN", 22, U2, Inf),
    fd("SYTEPM_CALENTCT", 24, U2, Inf),
];
static SYTEPM_CHPATH: &[FieldDef] = &[
    fd("SYTEPM_CHPID", 0, U1, Inf),
    fd("SYTEPM_CALCMG", 1, U1, Inf),
    fd("SYTEPM_CALFLAGS", 2, Bits(1), Inf),
    fd("SYTEPM_CHPTYPE", 3, U1, Inf),
    fd("SYTEPM_CALSLOTS", 4, U2, Inf),
    fd("SYTEPM_CALSPEED", 6, U2, Inf),
    fd("SYTEPM_CALTOD", 8, Tod, Inf),
    fd("SYTEPM_CALTBUSY", 16, Dur, Inf),
    fd("SYTEPM_CALPBUSY", 24, Dur, Inf),
    fd("SYTEPM_CALPDATA", 32, U8, Inf),
    fd("SYTEPM_CALPWORK", 40, U8, Inf),
];
const SYTEPM_GROUP: GroupDef = GroupDef {
    name: "SYTEPM_CHPATH",
    offset_field: "SYTEPM_CALOFFST",
    len_field: "SYTEPM_CALENTLN",
    entry_size: 48,
    fields: SYTEPM_CHPATH,
};

static NONE: &[FieldDef] = &[];

// Sources, by page (https://www.vm.ibm.com/pubs/monNNN/NAME.HTML) and struct.
const ZPMD: &str = "zpmd src/v53_records.h (z/VM 5.3 structs)";

/// Every layout version. Order does not matter; the index sorts by release.
pub static LAYOUTS: &[RecordLayout] = &[
    // ------------------------------------------------------------ domain 0
    v(0, 1, "MRSYTSYP", S, R53, 116, Z53, SYTSYP, &[R53, R64],
        "IBM mon420, mon510, mon640 (20-35); zpmd d0r1",
        "per CPU; 96 bytes in 4.2-5.1; offsets >= 36 from zpmd"),
    v(0, 2, "MRSYTPRP", S, R53, 108, Z53, SYTPRP, &[R53],
        "IBM mon430, mon540, mon620 (20-23); zpmd d0r2",
        "per CPU; 104 bytes in 4.3"),
    v(0, 2, "MRSYTPRP", S, R54, 124, Z53, SYTPRP, &[R54],
        "IBM mon540 (size 124)", "per CPU; 16 bytes appended in 5.4, not mapped"),
    v(0, 2, "MRSYTPRP", S, R62, 140, Z53, SYTPRP, &[R62],
        "IBM mon620 (size 140)", "per CPU; appended fields not mapped"),
    v(0, 2, "MRSYTPRP", S, R64, 352, Z53, SYTPRP, &[R64],
        "IBM mon640 (size 352)", "per CPU (per thread with MT); appended MT fields not mapped"),
    v(0, 3, "MRSYTRSG", S, R53, 492, Z53, SYTRSG, &[R53], ZPMD,
        "selected 5.3 fields; 224 bytes in 5.2; steal-by-class counters not mapped"),
    v(0, 4, "MRSYTRSP", S, R53, 72, Z53, SYTRSP, &[R53, R64],
        "IBM mon430, mon640 (20-39); zpmd d0r4", "per CPU; 48 bytes in 4.3"),
    v(0, 5, "MRSYTXSP", S, R53, 56, Z53, SYTXSP, &[R53], ZPMD, "per CPU expanded-storage paging"),
    v(0, 6, "MRSYTASG", S, R53, 84, Z53, SYTASG, &[R53],
        "IBM mon730 (20); zpmd d0r6", "auxiliary storage, global"),
    v(0, 6, "MRSYTASG", S, R73, 112, Z53, SYTASG, &[R73],
        "IBM mon730 (size 112)", "appended fields not mapped"),
    v(0, 7, "MRSYTSHS", S, R53, 72, Ibm, SYTSHS, &[R73], "IBM mon730 (20-31, size 72)",
        "shared storage: NSS/DCSS counts and resident shared frames; fields beyond 32 (VDISK) not mapped"),
    v(0, 12, "MRSYTUWT", S, R53, 160, Z53, SYTUWT, &[R53],
        "IBM mon430, mon510, mon520, mon610, mon620, mon720 (20-31); zpmd d0r12",
        "80 bytes in 4.3-5.2; offset 24 is CALTSVM in IBM's map (CALSVMWT in its prolog)"),
    v(0, 12, "MRSYTUWT", S, R61, 180, Z53, SYTUWT, &[R61, R62, R72],
        "IBM mon610, mon620, mon720 (size 180)", "per-processor-type breakdown (80-156) not mapped"),
    v(0, 14, "MRSYTXSG", S, R53, 188, Z53, SYTXSG, &[R53], ZPMD,
        "5.3: XSTOR and MDC; 7.5 reserves the XSTOR fields (204 bytes)"),
    RecordLayout {
        group: Some(SYTEPM_GROUP),
        ..v(0, 20, "MRSYTEPM", S, R53, 28, Inf, SYTEPM, &[],
            "IBM mon440, mon540, mon640, mon730 MRSYTCPC/MRSYTCPM prologs (the record's role, not its map)",
            "INFERRED map: extended channel measurement, one entry per channel path")
    },
    v(0, 15, "MRSYTCUG", S, R53, 56, Z53, SYTCUG, &[R53],
        "IBM mon420 (size 28 in 4.2); zpmd d0r15", "LPAR global description"),
    RecordLayout {
        group: Some(SYTCUP_GROUP),
        ..v(0, 16, "MRSYTCUP", S, R53, 64, Z53, SYTCUP, &[R51, R52, R53, R61, R62],
            "IBM mon510, mon520, mon610, mon620 (fixed part 64 bytes); zpmd d0r16",
            "one per partition; entries (40 bytes in 5.3) via CALCPUOF/CALCPULN; from 6.3 per core with MT, \
             and a partition with many CPUs spans several records (SYTCPU_CALMORE/CALNREC, offsets not seen): \
             key entries by partition and CPU, not by record")
    },
    // ------------------------------------------------------------ domain 1
    v(1, 1, "MRMTREPR", C, R53, 24, Z53, MTREPR, &[R53], ZPMD, "event profile"),
    v(1, 1, "MRMTREPR", C, R73, 52, Z53, MTREPR, &[R73], "IBM mon730 (size 52)",
        "appended fields not mapped"),
    v(1, 2, "MRMTRECM", E, R53, 24, Ibm, MTRECM, &[R64], "IBM mon640", "event command text, variable length"),
    v(1, 3, "MRMTRSUS", E, R53, 24, Ibm, MTRSUS, &[R52, R72], "IBM mon520, mon720", "suspension ended"),
    v(1, 4, "MRMTRSYS", C, R53, 184, Z53, MTRSYS, &[R51, R53],
        "IBM mon420, mon430, mon440, mon510 (20-27, sizes); zpmd d1r4",
        "system configuration; 108 bytes in 4.2, 176 in 4.3/4.4"),
    v(1, 4, "MRMTRSYS", C, R61, 420, Z53, MTRSYS, &[R61], "IBM mon610 (size 420)",
        "from 6.1 MTRSYS_CALLEVEL bits flag APARs that change monitor data; appended fields not mapped"),
    v(1, 5, "MRMTRPRP", C, R53, 44, Z53, MTRPRP, &[R53], ZPMD, "per CPU configuration"),
    v(1, 6, "MRMTRDEV", C, R53, 416, Z53, MTRDEV, &[R53], ZPMD,
        "per device; 72 bytes in 4.4, 240 in 5.1; EDEV path entries (80-399) not mapped"),
    v(1, 7, "MRMTRMEM", C, R53, 144, Z53, MTRMEM, &[R53], "IBM mon640, mon720 (20-39); zpmd d1r7",
        "RSAGSTOR is IBM's preferred (64-bit) storage size"),
    v(1, 7, "MRMTRMEM", C, R64, 228, Z53, MTRMEM, &[R64], "IBM mon640 (size 228)", "appended fields not mapped"),
    v(1, 7, "MRMTRMEM", C, R72, 326, Z53, MTRMEM, &[R72, R73], "IBM mon720, mon730 (size 326)",
        "appended fields not mapped"),
    v(1, 8, "MRMTRPAG", C, R53, 48, Z53, MTRPAG, &[R53, R54, R64],
        "IBM mon540, mon640 (20-39, size 48); zpmd d1r8 (40-47)",
        "one per paging or spool extent; 44 bytes in 4.4"),
    v(1, 8, "MRMTRPAG", C, R71, 64, Z53, MTRPAG, &[R71, R72, R74], "IBM mon710, mon720, mon740 (size 64)",
        "CALCYLNO/CALSTART deprecated from 7.2 (64-bit CALCYLNOG/CALSTARTG, offsets not seen)"),
    v(1, 9, "MRMTRSPR", C, R53, 36, Z53, MTRSPR, &[R53, R54], "IBM mon540 (size 36, 20 signed); zpmd d1r9",
        "INTERVAL in seconds, HFRATE in hundredths of a second (units INFERRED); 52 bytes in 7.5"),
    v(1, 10, "MRMTRSCM", S, R53, 32, Z53, MTRSCM, &[R53, R73], "IBM mon730 (size 32); zpmd d1r10",
        "sample command text, variable length"),
    v(1, 11, "MRMTREND", K, R53, 20, Ibm, NONE, &[R73], "IBM mon730", "interval end"),
    v(1, 12, "MRMTRSOS", K, R53, 20, Ibm, NONE, &[R52, R53, R63, R72, R75], "IBM mon520, mon530, mon630, mon720, mon750",
        "start of event suspension"),
    v(1, 13, "MRMTREOF", K, R53, 20, Ibm, NONE, &[R54, R71], "IBM mon540, mon710", "end of frame"),
    v(1, 14, "MRMTRDDR", C, R53, 36, Z53, MTRDDR_53, &[R53], ZPMD,
        "domain detail; item list not decoded"),
    v(1, 14, "MRMTRDDR", C, R73, 28, Ibm, MTRDDR_73, &[R73, R75], "IBM mon730, mon750 (fixed part 28)",
        "domain detail; continuation flag and item list not decoded; when the map changed is not known"),
    v(1, 15, "MRMTRUSR", C, R53, 124, Z53, MTRUSR, &[R53], "IBM mon440, mon620 (20-29); zpmd d1r15",
        "per logged-on user; 96 bytes in 4.4"),
    v(1, 15, "MRMTRUSR", C, R62, 224, Z53, MTRUSR, &[R62], "IBM mon620 (size 224)", "appended fields not mapped"),
    v(1, 15, "MRMTRUSR", C, R73, 348, Z53, MTRUSR, &[R73], "IBM mon730 (size 348)", "appended fields not mapped"),
    v(1, 20, "MRMTRHPP", C, R53, 24, Z53, MTRHPP, &[R53], ZPMD, "HyperPAV pool definition"),
    v(1, 17, "MRMTRXSG", C, R53, 36, Ibm, MTRXSG, &[R42, R44, R51, R63], "IBM mon420, mon440, mon510, mon630",
        "expanded storage configuration"),
    // ------------------------------------------------------------ domain 3
    v(3, 1, "MRSTORSG", S, R53, 352, Z53, STORSG, &[R53], "IBM mon630 (20-35); zpmd d3r1",
        "real storage management, global"),
    v(3, 1, "MRSTORSG", S, R62, 464, Z53, STORSG, &[R62], "IBM mon620 (size 464)", "appended fields not mapped"),
    v(3, 1, "MRSTORSG", S, R63, 780, Inf, STORSG_63, &[R63], "IBM mon630 (size 780; 24 reserved)",
        "IBM's appended fields not mapped; 464-559 an INFERRED aging-list block of ztwin's (STORSG_AGL*)"),
    v(3, 2, "MRSTORSP", S, R53, 364, Z53, STORSP, &[R53], "IBM mon630, mon640 (20-23); zpmd d3r2", "per CPU"),
    v(3, 2, "MRSTORSP", S, R63, 720, Z53, STORSP, &[R63], "IBM mon630 (size 720; 24 and 28 reserved)",
        "per CPU; appended fields not mapped"),
    v(3, 2, "MRSTORSP", S, R64, 744, Z53, STORSP, &[R64], "IBM mon640 (size 744)",
        "per CPU; appended fields not mapped"),
    v(3, 3, "MRSTOSHR", S, R53, 112, Ibm, STOSHR, &[R52, R53, R54],
        "IBM mon520, mon530, mon540 (20-43, size 112)",
        "per active NSS/DCSS/segment space; resident pages <2G at 40, the >2G count (ASCCTPRG) and later fields not mapped"),
    v(3, 3, "MRSTOSHR", S, R72, 120, Ibm, STOSHR, &[R72], "IBM mon720 (size 120)", "appended fields not mapped"),
    v(3, 4, "MRSTOASP", S, R53, 172, Z53, STOASP, &[R53, R62], "IBM mon530, mon620 (size 172), mon750 (70); zpmd d3r4",
        "per paging/spool exposure"),
    v(3, 4, "MRSTOASP", S, R73, 228, Z53, STOASP, &[R73], "IBM mon730 (size 228)",
        "per exposure; appended fields not mapped; 260 bytes in 7.5"),
    v(3, 5, "MRSTOSHS", E, R53, 44, Ibm, STOSHS, &[R54], "IBM mon540 (20-41, size 44)", "NSS/DCSS saved"),
    v(3, 9, "MRSTOXSG", S, R53, 72, Z53, STOXSG, &[R53], ZPMD, "expanded storage, global"),
    v(3, 9, "MRSTOXSG", S, R71, 20, Ibm, NONE, &[R71], "IBM mon710",
        "no longer valid (expanded storage support removed)"),
    v(3, 10, "MRSTOXSU", S, R53, 40, Z53, STOXSU, &[R53], ZPMD, "expanded storage per user"),
    v(3, 10, "MRSTOXSU", S, R72, 20, Ibm, NONE, &[R72], "IBM mon720",
        "no longer valid (expanded storage support removed)"),
    v(3, 14, "MRSTOASI", S, R53, 92, Inf, STOASI, &[],
        "not in the IBM pages read (name and number as recalled)",
        "INFERRED map: one per VDISK address space (FCX147 VDISKS); written only when VDISKs exist"),
    v(3, 15, "MRSTOSHL", E, R53, 44, Inf, STOSHL, &[R43, R52], "IBM mon430, mon520 (size 44), mon630 (48)",
        "NSS/DCSS/SSP loaded into storage (first user); fields INFERRED (STOSHS's file identification)"),
    v(3, 15, "MRSTOSHL", E, R63, 48, Inf, STOSHL, &[R63], "IBM mon630 (size 48)", "appended fields not mapped"),
    v(3, 16, "MRSTOSHD", E, R53, 100, Inf, STOSHD, &[R43], "IBM mon430 (size 100), mon640 (20-39)",
        "NSS/DCSS/SSP removed from storage (last user); 112 bytes in 6.1, 120 in 6.4; SDFIDNUM at 40 inferred"),
    v(3, 16, "MRSTOSHD", E, R61, 112, Inf, STOSHD, &[R61], "IBM mon610 (size 112)", "appended fields not mapped"),
    v(3, 16, "MRSTOSHD", E, R64, 120, Inf, STOSHD, &[R64], "IBM mon640 (size 120)", "appended fields not mapped"),
    // ------------------------------------------------------------ domain 4
    v(4, 1, "MRUSELON", E, R53, 96, Z53, USELON_53, &[R43, R44, R53], "IBM mon430, mon440, mon530 (20-31); zpmd d4r1",
        "base VMDBK only"),
    v(4, 1, "MRUSELON", E, R54, 176, Inf, USELON_54, &[R54], "IBM mon540 (size 176)",
        "base VMDBK only; appended fields beyond 104 not mapped"),
    v(4, 1, "MRUSELON", E, R62, 180, Inf, USELON_54, &[R62, R64], "IBM mon620, mon640 (size 180)",
        "base VMDBK only; appended fields beyond 104 not mapped"),
    v(4, 2, "MRUSELOF", E, R53, 444, Inf, &USELOF, &[R54], "IBM mon430, mon540, mon620 (20-31); zpmd d4r2",
        "one per virtual CPU active at logoff (base VMDBK only in 4.3, 284 bytes); 5.3 size not seen"),
    v(4, 2, "MRUSELOF", E, R62, 496, Inf, &USELOF, &[R62], "IBM mon620 (size 496)",
        "one per virtual CPU; from 6.3 raw, MT-1 (_MT1) and prorated (_PRO) times, offsets not seen"),
    v(4, 3, "MRUSEACT", S, R53, 440, Inf, &USEACT, &[R61], "IBM mon610, mon620 (20-32)",
        "one per virtual CPU; 5.x pages not seen, size carried back from 6.1; body INFERRED (USELOF order)"),
    v(4, 3, "MRUSEACT", S, R62, 508, Inf, &USEACT, &[R62], "IBM mon620 (size 508)",
        "one per virtual CPU; from 6.3 topology entries (VMUTOPDA) and _MT1/_PRO times, offsets not seen"),
    v(4, 4, "MRUSEINT", S, R53, 228, Inf, USEINT, &[R51], "IBM mon510 (size 228, field names)",
        "one per VMDBK (virtual CPU); INFERRED offsets: z/VM 5.3 USEITE template"),
    // ------------------------------------------------------------ domain 5
    v(5, 3, "MRPRCPRP", S, R53, 384, Z53, PRCPRP, &[R53, R71], "IBM mon710 (20-83, size 384); zpmd d5r3",
        "per real CPU"),
    // ------------------------------------------------------------ domain 6
    v(6, 1, "MRIODVON", E, R53, 388, Z53, IODVON, &[R53], "IBM mon420 (20-23); zpmd d6r1",
        "vary on device (60 bytes in 4.2); EDEV path entries not mapped"),
    v(6, 2, "MRIODVOF", E, R53, 28, Z53, IODVOF, &[R53], ZPMD, "vary off device"),
    v(6, 3, "MRIODDEV", S, R53, 260, Z53, IODDEV, &[R53], "zpmd d6r3 (TODO struct, header added); IBM mon620, mon640 prolog",
        "per online device; IBM offsets not visible for any release"),
    v(6, 13, "MRIODMON", E, R53, 28, Ibm, IODMON, &[R43, R52, R53, R64], "IBM mon430, mon520, mon640", "SET SCMEASURE ON"),
    v(6, 14, "MRIODMOF", E, R53, 68, Z53, IODMOF, &[R53], "IBM mon750 (20-25); zpmd d6r14",
        "SET SCMEASURE OFF with final measurement block; 76 bytes in 7.5"),
    v(6, 16, "MRIODMDV", E, R53, 36, Ibm, IODMDV, &[R53, R71, R72], "IBM mon530, mon710, mon720", "modify device"),
    v(6, 4, "MRIODCAD", S, R53, 264, Inf, IODCAD, &[R44, R61, R62],
        "IBM mon440, mon610, mon620 (size 264; RDEVSID, STATUS)",
        "cache activity, one per base device on a caching control unit (not for aliases); CALDATA counters INFERRED"),
    v(6, 21, "MRIODVSW", S, R53, 140, Z53, &IODVSW, &[R52], "IBM mon440 (20-29, size 132), mon520 (20-31, size 140); zpmd d6r21",
        "virtual switch activity, one per VSWITCH uplink (its DATA device); counters after 30 from zpmd"),
    v(6, 21, "MRIODVSW", S, R61, 340, Z53, &IODVSW61, &[R61], "IBM mon610 (size 340); zpmd d6r21",
        "virtual switch activity; LANID (LAN owner and name) at 184 from zpmd"),
    v(6, 21, "MRIODVSW", S, R71, 492, Z53, &IODVSW61, &[R71, R72], "IBM mon710, mon720 (size 492); zpmd d6r21",
        "virtual switch activity (uplink may be a link aggregation group); fields as in 6.1"),
    v(6, 24, "MRIODSZI", S, R53, 316, Z53, IODSZI, &[R63, R71],
        "IBM mon630, mon710 (size 316; 20-39); zpmd d6r24",
        "SCSI (EDEV) device activity; path blocks 3-8 not mapped"),
    v(6, 25, "MRIODQDA", E, R53, 41, Ibm, IODQDA, &[R53], "IBM mon530 (20-31, size 41), mon510 (20-41, size 44)",
        "QDIO device activation (real device with CP shadow queues); offsets 32-38 as in mon510"),
    v(6, 25, "MRIODQDA", E, R62, 44, Ibm, IODQDA, &[R62], "IBM mon620 (size 44)",
        "QDIO device activation; offsets 32-38 as in mon510"),
    v(6, 25, "MRIODQDA", E, R63, 43, Ibm, IODQDA, &[R63, R73], "IBM mon630, mon730 (20-31, size 43)",
        "QDIO device activation; offsets 32-38 as in mon510"),
    v(6, 26, "MRIODQDS", S, R53, 346, Inf, &IODQDS, &[R53], "IBM mon530 (prolog, size 346)",
        "QDIO device activity, one per active device; body INFERRED: MRIODQDD's SIGA counts, then ztwin's byte and buffer counters"),
    v(6, 27, "MRIODQDD", E, R53, 348, Inf, &IODQDD, &[R52], "IBM mon510, mon520 (20-43, size 348)",
        "QDIO device deactivation with final counts; owner, format, byte and buffer counters after 44 INFERRED"),
    v(6, 27, "MRIODQDD", E, R61, 346, Inf, &IODQDD, &[R61], "IBM mon610 (size 346)",
        "QDIO device deactivation; counters as in mon510"),
    v(6, 27, "MRIODQDD", E, R62, 348, Inf, &IODQDD, &[R62], "IBM mon620 (size 348)",
        "QDIO device deactivation; counters as in mon510"),
    v(6, 28, "MRIODHPP", S, R53, 48, Z53, IODHPP, &[R61, R63],
        "IBM mon610, mon630 (D6R28, size 48; 20-23); zpmd d6r28", "HyperPAV pool activity; counters after 24 from zpmd"),
    // ----------------------------------------------------------- domain 10
    v(10, 1, "MRAPLEDT", E, R53, 52, Inf, APLEDT, &[R44, R54, R62], "IBM mon440, mon540, mon620 (size 52 of the fixed part)",
        "APPLDATA ended for a buffer; fixed part only, the application data follows at CALDATOF (layouts in appldata.rs)"),
    v(10, 2, "MRAPLSDT", S, R53, 52, Inf, APLSDT, &[R44, R54, R64], "IBM mon440, mon540, mon640 (size 52 of the fixed part)",
        "APPLDATA buffer at each sample (DIAGNOSE X'DC'); fixed part only, data at CALDATOF (layouts in appldata.rs)"),
];

/// Records whose fixed part is followed by data of the writer's choosing (the
/// application data of domain 10): never "longer" than their layout.
pub static VARIABLE_TAIL: &[(u8, u16)] = &[(10, 1), (10, 2)];

/// Field names ztwin used before the layouts were checked against IBM's pages
/// and zpmd, with the name that replaced them (same meaning; the offset may
/// differ). Looking a field up by its old name finds the new one
/// ([`RecordLayout::field`](super::RecordLayout::field)); records are decoded
/// and dumped under the new names only.
pub static ALIASES: &[(&str, &str)] = &[
    ("MTRMEM_SYSGSTOR", "MTRMEM_RSAGSTOR"),
    ("SYTCUP_LCPU", "SYTCUP_CPUDATA"),
    ("SYTCUP_LCXPNAME", "SYTCUP_LCUPNAME"),
    ("SYTCUP_LCXLPNUM", "SYTCUP_LCUPPNUM"),
    ("SYTCUP_LCXCPCNT", "SYTCUP_LCUPCPCT"),
    ("SYTCUP_LCCCPUAD", "SYTCUP_LCUCPUID"),
    ("SYTCUP_LCCWEIGHT", "SYTCUP_LCUCWGHT"),
    ("SYTCUP_LCCFLAGS", "SYTCUP_LCUCFLGS"),
    ("SYTCUP_LCCDSPTM", "SYTCUP_LCUCACTM"),
    ("SYTCUP_LCCOVHTM", "SYTCUP_LCUCLPTM"),
    // IBM's prolog lists the field at offset 24 as CALSVMWT; its map names it CALTSVM.
    ("SYTUWT_CALSVMWT", "SYTUWT_CALTSVM"),
    // zpmd's MRIODDEV has two high-frequency counters; their meaning (requests
    // queued on the RDEV, I/O active, each summed over the samples) is inferred
    // from the names only.
    ("IODDEV_HFQUEUE", "IODDEV_HFRDEVCT"),
    ("IODDEV_HFBUSY", "IODDEV_HFCTIO"),
    // RDEVMCIA: minidisk-cache I/Os avoided (meaning inferred from the name).
    ("IODDEV_RDEVMDCH", "IODDEV_RDEVMCIA"),
];

/// Field names ztwin used that have no counterpart in IBM's pages or zpmd's
/// structs, and why. Writing one stores nothing ([`RecordLayout::f`](super::RecordLayout::f)
/// gives a field that fits no record); reading one finds no field.
pub static RETIRED: &[(&str, &str)] = &[
    ("IODDEV_RDEVTYPE", "device type is in the configuration record MRMTRDEV"),
    ("IODDEV_RDEVCLAS", "device class is in the configuration record MRMTRDEV"),
    ("IODDEV_CALFLAGS", "not in the device activity record"),
    ("IODDEV_RDEVSSCH", "no such RDEV counter in the record; SSCHs are SCMSSCH / SCGSSCH"),
    ("IODDEV_HFCOUNT", "not in the record: the number of high-frequency samples is the processor's (PRCPRP_HFCOUNT)"),
    ("IODDEV_RDEVMDCI", "not in the record (minidisk cache counters: RDEVMCIA)"),
    ("IODDEV_CALRDEVDEV", "PAV base device is in MRMTRDEV (CALRDEVDEV)"),
    ("MTRDEV_RDEVSHAR", "not in the record"),
    ("MTRDEV_RDEVLCU", "not in the record"),
    ("MTRDEV_RDEVCYLS", "not in the record: the size of a volume is not in the monitor data"),
    ("MTRPAG_CALFLAG1", "the flag byte is CALFLAGS (X'80' = FBA) and the area type CALTYPE ('PAGE'/'SPOL')"),
    ("MTRPAG_CALEND", "the record gives the extent's size (CALCYLNO), not its end"),
    ("MTRPAG_CALSLOTS", "not in the record (slots per volume are in MRSTOASP)"),
    ("MTRUSR_VMDFLAGS", "QUICKDSP and other user flags are in CALSTAT"),
    ("MTRUSR_VMDPUTYP", "not in the record"),
    ("MTRUSR_VMDRSRVD", "not in the record"),
    ("USELON_VMDCPUCT", "not in the record (MRMTRUSR has VMDCPUCT)"),
    ("USELON_VMDFLAGS", "QUICKDSP and other user flags are in CALSTAT"),
    ("USELON_VMDPUTYP", "not in the record"),
    ("USELON_VMDRSRVD", "not in the record"),
    ("USEACT_VMDCFGEM", "not in the record map ztwin follows"),
    ("USEACT_VMDPUST", "not in the record map ztwin follows"),
    ("SYTCUP_LCXFLAGS", "partition flags are CALFLGS, meaning of the bits not seen"),
    ("SYTCUP_LCXCPUTY", "the processor type is text (LCPTYPE, LCXCPTYP)"),
    ("SYTCUP_LCXWEIGHT", "weights are per logical CPU (LCUCWGHT)"),
    ("SYTCUP_LCXPHYCT", "not in the record"),
    ("SYTCUP_LCCCPUTY", "the processor type is text (LCXCPTYP)"),
    ("MTRDDR_CONT", "not at that place (zpmd: CALFLAGS; IBM 7.3: offset not seen)"),
    ("MTRDDR_CALCOUNT", "not at that place (zpmd: DMITEMCT)"),
];
