//! The record layouts, as data. One entry per (domain, record, release).
//!
//! Sources and confidence follow `shared/spec/monitor-records.md`:
//! `Ibm` = seen in an IBM record page, `Z53` = z/VM 5.3 map from zpmd's structs,
//! `Inferred` = our reconstruction. **This file is the one place that says which
//! layouts are inferred**: when a real MONWRITE file shows a different offset,
//! change the entry here and nothing else.
//!
//! Layouts marked inferred as a whole (the record's `src` is `Inferred`):
//! MRMTRDEV (from the IODVON template), MRMTRMEM beyond RSASTORE, MRMTRPAG beyond
//! the volser, MRMTRUSR beyond VMDUSER, MRMTRDDR beyond the first two fields,
//! MRSYTCUP (whole body), MRUSELON / MRUSELOF beyond the user id, MRUSEACT beyond
//! offset 30 (from the 5.3 USEATE template), MRUSEINT (from the 5.3 USEITE
//! template), MRIODDEV (whole body; IBM offsets could not be read for any
//! release), MRIODVOF.

use super::Confidence::{self, Ibm, Inferred as Inf, Z53};
use super::FieldType::{self, *};
use super::{FieldDef, GroupDef, RecordKind, RecordLayout, Release};

const fn fd(name: &'static str, offset: u16, ty: FieldType, src: Confidence) -> FieldDef {
    FieldDef { name, offset, ty, src }
}

const R53: Release = Release(5, 3);

#[allow(clippy::too_many_arguments)]
const fn rec(
    domain: u8,
    record: u16,
    name: &'static str,
    kind: RecordKind,
    size: u16,
    src: Confidence,
    fields: &'static [FieldDef],
    note: &'static str,
) -> RecordLayout {
    RecordLayout { domain, record, name, kind, since: R53, size, src, fields, group: None, note }
}

use RecordKind::{Config as C, Control as K, Event as E, Sample as S};

// ---------------------------------------------------------------- domain 0
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

// Inferred: IBM names the offset/length fields; everything else is ours.
static SYTCUP: &[FieldDef] = &[
    fd("SYTCUP_CALCPUOF", 20, U2, Inf),
    fd("SYTCUP_CALCPULN", 22, U2, Inf),
    fd("SYTCUP_LCXLPNUM", 24, U2, Inf),
    fd("SYTCUP_LCXCPCNT", 26, U2, Inf),
    fd("SYTCUP_LCXPNAME", 28, Char(8), Inf),
    fd("SYTCUP_LCXFLAGS", 36, Bits(1), Inf),
    fd("SYTCUP_LCXCPUTY", 37, U1, Inf),
    fd("SYTCUP_LCXWEIGHT", 38, U2, Inf),
    fd("SYTCUP_LCXPHYCT", 40, U2, Inf),
];
static SYTCUP_LCPU: &[FieldDef] = &[
    fd("SYTCUP_LCCCPUAD", 0, U2, Inf),
    fd("SYTCUP_LCCWEIGHT", 2, U2, Inf),
    fd("SYTCUP_LCCFLAGS", 4, Bits(1), Inf),
    fd("SYTCUP_LCCCPUTY", 5, U1, Inf),
    fd("SYTCUP_LCCDSPTM", 8, Dur, Inf),
    fd("SYTCUP_LCCOVHTM", 16, Dur, Inf),
];

// ---------------------------------------------------------------- domain 1
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
// Inferred: offsets follow the 5.3 IODVON event record (spec 6.1), which the
// spec offers as the best template; RDEVSHAR and RDEVLCU placements are ours.
static MTRDEV: &[FieldDef] = &[
    fd("MTRDEV_RDEVTYPE", 20, U1, Inf),
    fd("MTRDEV_RDEVCLAS", 21, U1, Inf),
    fd("MTRDEV_RDEVDVID", 22, Bits(2), Inf),
    fd("MTRDEV_CALMODLN", 24, U1, Inf),
    fd("MTRDEV_RDEVLPM", 25, Bits(1), Inf),
    fd("MTRDEV_RDEVDEV", 26, U2, Inf),
    fd("MTRDEV_RDEVSID", 28, U4, Inf),
    fd("MTRDEV_RDEVCHPS", 32, Bits(8), Inf),
    fd("MTRDEV_RDEVCUID", 40, Bits(2), Inf),
    fd("MTRDEV_RDEVCUMN", 42, U1, Inf),
    fd("MTRDEV_CALFLAGS", 43, Bits(1), Inf),
    fd("MTRDEV_RDEVSHAR", 44, Bits(1), Inf),
    fd("MTRDEV_RDEVSER", 46, Char(6), Inf),
    fd("MTRDEV_CALRDEVSID", 52, U4, Inf),
    fd("MTRDEV_CALRDEVDEV", 56, U2, Inf),
    fd("MTRDEV_RDEVPVFG", 58, Bits(1), Inf),
    fd("MTRDEV_EDEVTYPE", 59, U1, Inf),
    fd("MTRDEV_RDEVLCU", 60, U2, Inf),
    fd("MTRDEV_RDEVCYLS", 64, U4, Inf),
];
static MTRMEM: &[FieldDef] = &[
    fd("MTRMEM_RSASTORE", 20, U4, Ibm),
    fd("MTRMEM_SYSGSTOR", 24, U8, Inf),
];
static MTRPAG: &[FieldDef] = &[
    fd("MTRPAG_CPVOLSER", 20, Char(6), Ibm),
    fd("MTRPAG_RDEVDEV", 26, U2, Inf),
    fd("MTRPAG_RDEVSID", 28, U4, Inf),
    fd("MTRPAG_CALFLAG1", 32, Bits(1), Inf),
    fd("MTRPAG_CALSTART", 36, U4, Inf),
    fd("MTRPAG_CALEND", 40, U4, Inf),
    fd("MTRPAG_CALSLOTS", 44, U4, Inf),
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
static MTRDDR: &[FieldDef] = &[
    fd("MTRDDR_PROFILE", 20, Char(1), Ibm),
    fd("MTRDDR_DMNUMBER", 21, U1, Ibm),
    fd("MTRDDR_CONT", 22, Bits(1), Inf),
    fd("MTRDDR_CALCOUNT", 24, U2, Inf),
];
// Inferred beyond VMDUSER; the user description fields follow USEACT's names.
static MTRUSR: &[FieldDef] = &[
    fd("MTRUSR_VMDUSER", 20, Char(8), Ibm),
    fd("MTRUSR_VMDCPUCT", 28, U2, Inf),
    fd("MTRUSR_VMDFLAGS", 30, Bits(1), Inf),
    fd("MTRUSR_VMDPUTYP", 31, U1, Inf),
    fd("MTRUSR_VMDRELSH", 32, U4, Inf),
    fd("MTRUSR_VMDABSSH", 36, U4, Inf),
    fd("MTRUSR_VMDMXSHR", 40, U4, Inf),
    fd("MTRUSR_VMDSSIZE", 44, U4, Inf),
    fd("MTRUSR_VMDRSRVD", 48, U4, Inf),
    fd("MTRUSR_VMDACTNO", 52, Char(8), Inf),
    fd("MTRUSR_CALTODON", 60, Tod, Inf),
];
static MTRXSG: &[FieldDef] = &[
    fd("MTRXSG_XSTOTALB", 20, U8, Ibm),
    fd("MTRXSG_SYSXTSIZ", 28, U8, Ibm),
];

// ---------------------------------------------------------------- domain 3
static STORSG: &[FieldDef] = &[
    fd("STORSG_CALSSUBT", 20, U4, Z53),
    fd("STORSG_RSASAVFR", 28, U4, Z53),
    fd("STORSG_RSAMAXPP", 32, U4, Z53),
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
];

static STORSP: &[FieldDef] = &[
    fd("STORSP_PFXCPUAD", 20, U2, Z53),
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

// ---------------------------------------------------------------- domain 4
// Inferred beyond the user id: the logon/logoff events carry the same user
// description as MTRUSR (logon) and final totals (logoff).
static USELON: &[FieldDef] = &[
    fd("USELON_VMDUSER", 20, Char(8), Inf),
    fd("USELON_VMDCPUCT", 28, U2, Inf),
    fd("USELON_VMDFLAGS", 30, Bits(1), Inf),
    fd("USELON_VMDPUTYP", 31, U1, Inf),
    fd("USELON_VMDRELSH", 32, U4, Inf),
    fd("USELON_VMDABSSH", 36, U4, Inf),
    fd("USELON_VMDMXSHR", 40, U4, Inf),
    fd("USELON_VMDSSIZE", 44, U4, Inf),
    fd("USELON_VMDRSRVD", 48, U4, Inf),
    fd("USELON_VMDACTNO", 52, Char(8), Inf),
    fd("USELON_CALTODON", 60, Tod, Inf),
];
static USELOF: &[FieldDef] = &[
    fd("USELOF_VMDUSER", 20, Char(8), Inf),
    fd("USELOF_VMDTTIME", 28, Dur, Inf),
    fd("USELOF_VMDVTIME", 36, Dur, Inf),
    fd("USELOF_CALCPPGR", 44, U4, Inf),
    fd("USELOF_CALCPPGW", 48, U4, Inf),
    fd("USELOF_CALTODON", 52, Tod, Inf),
];

// USEACT: offsets 20 and 28 are IBM; the rest follows the z/VM 5.3 USEATE map,
// which carries the same family of fields but is not confirmed identical.
static USEACT: &[FieldDef] = &[
    fd("USEACT_VMDUSER", 20, Char(8), Ibm),
    fd("USEACT_VMDCPUAD", 28, U2, Ibm),
    fd("USEACT_VMDMODE", 30, Bits(1), Inf),
    fd("USEACT_CALMODE", 31, Bits(1), Inf),
    fd("USEACT_VMDTTIME", 32, Dur, Inf),
    fd("USEACT_VMDVTIME", 40, Dur, Inf),
    fd("USEACT_VMDCTPVR", 64, U4, Inf),
    fd("USEACT_VMDCTPVL", 68, U4, Inf),
    fd("USEACT_VMDWSSPR", 72, U4, Inf),
    fd("USEACT_VMDCTXBK", 76, U4, Inf),
    fd("USEACT_VMDCTFLT", 80, U4, Inf),
    fd("USEACT_VMDCTORF", 88, U4, Inf),
    fd("USEACT_CALCTPGS", 92, U4, Inf),
    fd("USEACT_VMDCTPWT", 100, U4, Inf),
    fd("USEACT_CALCPPGR", 104, U4, Inf),
    fd("USEACT_CALCPPGW", 108, U4, Inf),
    fd("USEACT_VMDCTSPR", 112, U4, Inf),
    fd("USEACT_VMDCTSPW", 116, U4, Inf),
    fd("USEACT_VMDPGSPL", 120, U4, Inf),
    fd("USEACT_VMDVCSCT", 124, U4, Inf),
    fd("USEACT_VMDVDSCT", 128, U4, Inf),
    fd("USEACT_VMDVUSCT", 132, U4, Inf),
    fd("USEACT_VMDVTSCT", 136, U4, Inf),
    fd("USEACT_VMDVOSCT", 140, U4, Inf),
    fd("USEACT_CALCPPST", 144, U4, Inf),
    fd("USEACT_VMDISEVM", 148, U4, Inf),
    fd("USEACT_VMDISTVM", 152, U4, Inf),
    fd("USEACT_VMDISUVM", 156, U4, Inf),
    fd("USEACT_VMDVSEVM", 160, U4, Inf),
    fd("USEACT_VMDVSTVM", 164, U4, Inf),
    fd("USEACT_VMDVSUVM", 168, U4, Inf),
    fd("USEACT_VMDX98CT", 172, U4, Inf),
    fd("USEACT_CALCPMIG", 176, U4, Inf),
    fd("USEACT_CALCPXWT", 180, U4, Inf),
    fd("USEACT_CALCPXRD", 184, U4, Inf),
    fd("USEACT_CALFLAG1", 188, Bits(1), Inf),
    fd("USEACT_VMDSTYPE", 189, U1, Inf),
    fd("USEACT_CALSHARF", 190, Bits(1), Inf),
    fd("USEACT_VMDBLKCT", 192, U4, Inf),
    fd("USEACT_VMDMDCIA", 196, U4, Inf),
    fd("USEACT_VMDCOPCT", 200, U4, Inf),
    fd("USEACT_VMDCTISO", 204, U4, Inf),
    fd("USEACT_VMDRELSH", 208, U4, Inf),
    fd("USEACT_VMDABSSH", 212, U4, Inf),
    fd("USEACT_VMDSSIZE", 216, U4, Inf),
    fd("USEACT_VMDMXRVP", 220, U4, Inf),
    fd("USEACT_VMDACTNO", 224, Char(8), Inf),
    fd("USEACT_VMDGRPN", 232, Char(8), Inf),
    fd("USEACT_CALTODON", 240, Tod, Inf),
    fd("USEACT_VMDVDISK", 248, U4, Inf),
    fd("USEACT_VMDMXSHR", 252, U4, Inf),
    fd("USEACT_ASCDEFSZ", 256, U8, Inf),
    fd("USEACT_VMDCTPVG", 272, U4, Inf),
    fd("USEACT_VMDMVB2G", 276, U4, Inf),
    fd("USEACT_VEBALERT", 280, U4, Inf),
    fd("USEACT_VEBTVSCT", 284, U4, Inf),
    fd("USEACT_VEBSVSCT", 288, U4, Inf),
    fd("USEACT_VEBTPIAI", 292, U4, Inf),
    fd("USEACT_VEBVIRAI", 296, U4, Inf),
    fd("USEACT_VEBHDWAI", 300, U4, Inf),
    fd("USEACT_VMDCTPVLA", 304, U8, Inf),
    fd("USEACT_VMDCTSHL", 312, U4, Inf),
    fd("USEACT_VMDCTSHLA", 316, U8, Inf),
    fd("USEACT_VMDPUTYP", 324, U1, Inf),
    fd("USEACT_VMDCFGEM", 325, U1, Inf),
    fd("USEACT_VMDPUST", 326, U1, Inf),
    fd("USEACT_VMDVTMP", 328, Dur, Inf),
    fd("USEACT_VMDTTMP", 336, Dur, Inf),
    fd("USEACT_VMDVTMS", 344, Dur, Inf),
    fd("USEACT_VMDTTMS", 352, Dur, Inf),
];

// USEINT: no source shows it; the z/VM 5.3 USEITE map (same high-frequency state
// counters) is used as the template.
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

// ---------------------------------------------------------------- domain 5
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

// ---------------------------------------------------------------- domain 6
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
static IODVOF: &[FieldDef] = &[
    fd("IODVOF_RDEVSID", 20, U4, Inf),
    fd("IODVOF_RDEVDEV", 24, U2, Inf),
];
// Inferred as a whole. The IBM prolog lists the content (RDEV counters,
// IODDEV_HF high-frequency counters, SCM facility data, SIE assist data); the
// SCM fields repeat the MRIODMOF subchannel-measurement block in the same order.
static IODDEV: &[FieldDef] = &[
    fd("IODDEV_RDEVSID", 20, U4, Inf),
    fd("IODDEV_RDEVDEV", 24, U2, Inf),
    fd("IODDEV_RDEVTYPE", 26, U1, Inf),
    fd("IODDEV_RDEVCLAS", 27, U1, Inf),
    fd("IODDEV_RDEVSER", 28, Char(6), Inf),
    fd("IODDEV_CALFLAGS", 34, Bits(1), Inf),
    fd("IODDEV_RDEVPVFG", 35, Bits(1), Inf),
    fd("IODDEV_RDEVSSCH", 36, U4, Inf),
    fd("IODDEV_HFCOUNT", 40, U4, Inf),
    fd("IODDEV_HFQUEUE", 44, U4, Inf),
    fd("IODDEV_HFBUSY", 48, U4, Inf),
    fd("IODDEV_SCMSSCH", 52, U2, Inf),
    fd("IODDEV_SCMCOUNT", 54, U2, Inf),
    fd("IODDEV_SCMCNTIM", 56, U4, Inf),
    fd("IODDEV_SCMFPTIM", 60, U4, Inf),
    fd("IODDEV_SCMDDTIM", 64, U4, Inf),
    fd("IODDEV_SCMCQTIM", 68, U4, Inf),
    fd("IODDEV_SCMDATIM", 72, U4, Inf),
    fd("IODDEV_SCMDBTIM", 76, U4, Inf),
    fd("IODDEV_SCMIRTIM", 80, U4, Inf),
    fd("IODDEV_SCGSSCH", 84, U4, Inf),
    fd("IODDEV_SCGCOUNT", 88, U4, Inf),
    fd("IODDEV_RDEVMDCH", 92, U4, Inf),
    fd("IODDEV_RDEVMDCI", 96, U4, Inf),
    fd("IODDEV_CALRDEVDEV", 100, U2, Inf),
    fd("IODDEV_RDEVHPPL", 102, U2, Inf),
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

static NONE: &[FieldDef] = &[];

/// Every known layout. Order does not matter; the index sorts by release.
pub static LAYOUTS: &[RecordLayout] = &[
    // domain 0: system
    rec(0, 1, "MRSYTSYP", S, 116, Z53, SYTSYP, "per CPU; offsets >= 36 from the 5.3 map"),
    rec(0, 2, "MRSYTPRP", S, 108, Z53, SYTPRP, "per CPU; 6.x appended MT fields not mapped"),
    rec(0, 3, "MRSYTRSG", S, 492, Z53, SYTRSG, "selected 5.3 fields; steal-by-class counters not mapped"),
    rec(0, 4, "MRSYTRSP", S, 72, Z53, SYTRSP, "per CPU"),
    rec(0, 5, "MRSYTXSP", S, 56, Z53, SYTXSP, "per CPU expanded-storage paging"),
    rec(0, 6, "MRSYTASG", S, 84, Z53, SYTASG, "auxiliary storage, global"),
    rec(0, 12, "MRSYTUWT", S, 160, Z53, SYTUWT, "per-processor-type breakdown (80-156) not mapped"),
    rec(0, 14, "MRSYTXSG", S, 188, Z53, SYTXSG, "5.3: XSTOR and MDC; 7.5 reserves the XSTOR fields"),
    rec(0, 15, "MRSYTCUG", S, 56, Z53, SYTCUG, "LPAR global description"),
    RecordLayout {
        domain: 0,
        record: 16,
        name: "MRSYTCUP",
        kind: S,
        since: R53,
        size: 64,
        src: Inf,
        fields: SYTCUP,
        group: Some(GroupDef {
            name: "SYTCUP_LCPU",
            offset_field: "SYTCUP_CALCPUOF",
            len_field: "SYTCUP_CALCPULN",
            fields: SYTCUP_LCPU,
        }),
        note: "INFERRED body: IBM names CALCPUOF/CALCPULN, offsets not seen; entries per logical CPU",
    },
    // domain 1: monitor
    rec(1, 1, "MRMTREPR", C, 24, Z53, MTREPR, "event profile"),
    rec(1, 2, "MRMTRECM", E, 24, Ibm, MTRECM, "event command text, variable length"),
    rec(1, 3, "MRMTRSUS", E, 24, Ibm, MTRSUS, "suspension ended"),
    rec(1, 4, "MRMTRSYS", C, 184, Z53, MTRSYS, "5.3 system configuration"),
    rec(1, 5, "MRMTRPRP", C, 44, Z53, MTRPRP, "per CPU configuration"),
    rec(1, 6, "MRMTRDEV", C, 240, Inf, MTRDEV, "INFERRED: IODVON 5.3 template; size 240 as seen for 5.1"),
    rec(1, 7, "MRMTRMEM", C, 326, Inf, MTRMEM, "RSASTORE is IBM; SYSGSTOR (64-bit bytes) INFERRED"),
    rec(1, 8, "MRMTRPAG", C, 64, Inf, MTRPAG, "CPVOLSER is IBM; extent fields INFERRED"),
    rec(1, 9, "MRMTRSPR", C, 36, Z53, MTRSPR, "INTERVAL in seconds, HFRATE in hundredths of a second (units INFERRED)"),
    rec(1, 10, "MRMTRSCM", S, 32, Z53, MTRSCM, "sample command text, variable length"),
    rec(1, 11, "MRMTREND", K, 20, Ibm, NONE, "interval end"),
    rec(1, 12, "MRMTRSOS", K, 20, Ibm, NONE, "start of event suspension"),
    rec(1, 13, "MRMTREOF", K, 20, Ibm, NONE, "end of frame"),
    rec(1, 14, "MRMTRDDR", C, 28, Ibm, MTRDDR, "domain detail; CONT and count INFERRED; item list not decoded"),
    rec(1, 15, "MRMTRUSR", C, 348, Inf, MTRUSR, "VMDUSER is IBM; the rest INFERRED"),
    rec(1, 17, "MRMTRXSG", C, 36, Ibm, MTRXSG, "expanded storage configuration"),
    // domain 3: storage
    rec(3, 1, "MRSTORSG", S, 352, Z53, STORSG, "real storage management, global"),
    rec(3, 2, "MRSTORSP", S, 364, Z53, STORSP, "per CPU; 6.3 grew to 720"),
    rec(3, 4, "MRSTOASP", S, 172, Z53, STOASP, "per paging/spool exposure"),
    rec(3, 9, "MRSTOXSG", S, 72, Z53, STOXSG, "expanded storage, global"),
    rec(3, 10, "MRSTOXSU", S, 40, Z53, STOXSU, "expanded storage per user; invalid from 7.2"),
    // domain 4: user
    rec(4, 1, "MRUSELON", E, 180, Inf, USELON, "INFERRED beyond VMDUSER; size 180 as seen for 7.3"),
    rec(4, 2, "MRUSELOF", E, 60, Inf, USELOF, "INFERRED (name recalled, layout ours)"),
    rec(4, 3, "MRUSEACT", S, 360, Inf, USEACT, "INFERRED beyond offset 30: z/VM 5.3 USEATE template"),
    rec(4, 4, "MRUSEINT", S, 200, Inf, USEINT, "INFERRED: z/VM 5.3 USEITE template"),
    // domain 5: processor
    rec(5, 3, "MRPRCPRP", S, 384, Z53, PRCPRP, "per real CPU"),
    // domain 6: I/O
    rec(6, 1, "MRIODVON", E, 388, Z53, IODVON, "vary on device; EDEV path entries not mapped"),
    rec(6, 2, "MRIODVOF", E, 28, Inf, IODVOF, "INFERRED"),
    rec(6, 3, "MRIODDEV", S, 104, Inf, IODDEV, "INFERRED body: IBM offsets not available for any release"),
    rec(6, 13, "MRIODMON", E, 28, Ibm, IODMON, "SET SCMEASURE ON"),
    rec(6, 14, "MRIODMOF", E, 68, Z53, IODMOF, "SET SCMEASURE OFF with final measurement block"),
    rec(6, 16, "MRIODMDV", E, 36, Ibm, IODMDV, "modify device"),
];
