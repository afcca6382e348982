#!/usr/bin/env bash
# Side-by-side table-synthesis times: the MC-DAG framework's Java schedulers (robertoxmed/MC-DAG,
# global ALAP / GMH-MC-DAG: G-EDZL, G-EDF, G-LLF) against kairos's synthesizer, on the
# framework's ten example systems (examples/mcdag/xml/test-6-{0..9}.xml), 8 cores.
#
#   scripts/bench-mcdag-reference.sh [options] MCDAG_CHECKOUT [HARNESS.java]
#
# MCDAG_CHECKOUT  a checkout of the MC-DAG framework (its root, or its src/ folder); only the
#                 sources the harness needs are compiled (javac -sourcepath): fr.tpt.s3.mcdag
#                 .model, .scheduling.SchedulingException, .scheduling.galap[.impl], .util.
# HARNESS.java    optional timing harness with a public class named like the file; by default
#                 the script writes its own (RefSynthBench, below) and uses that. A harness must
#                 print one line per file and policy:
#                 RESULT <file> <edzl|edf|llf> <H-slots> <accepted>/<runs> <median-ms> <min> <max> <verdict>
#
# Options
#   --files DIR        systems to time: DIR/test-6-*.xml (default examples/mcdag/xml)
#   --cores N          cores for both tools (default 8; the files say 6)
#   --policies LIST    kairos names, comma-separated (default gedzl,gedf,gllf)
#   --warmup N         Java warm-up runs per file and policy (default 20)
#   --runs N           Java timed runs per file and policy, median reported (default 50)
#   --kairos-runs N    `kairos synth --json` invocations per file and policy (default 11)
#   --warm-runs N      warm syntheses per file and policy in `kairos bench synth` (default 31)
#   --repeat N         repeat the whole kairos-then-Java measurement N times (default 1)
#   --no-criterion     skip `cargo bench -p kairos-mc --bench synth` (warm in-process medians)
#   --criterion-time S criterion measurement time per benchmark, seconds (default 3)
#   --build            `cargo build --release --bin kairos` first (default: use target/release/kairos)
#   --keep             keep the scratch folder (classes, raw outputs)
# Environment: JAVA (default java), JAVAC (default javac), JAVA_OPTS (extra JVM flags).
#
# What is timed
#   Java: per run a fresh system is built from the already-parsed XML (the schedulers mutate
#     the vertices), then scheduler construction + scheduleSystem() is timed with
#     System.nanoTime: synthesis up to its verdict (tables, or the SchedulingException). XML
#     parsing and JVM start are excluded; the JIT is warmed per file and policy first.
#   kairos, three numbers:
#     warm    criterion median of synthesize() alone (cargo bench, in-process, warm); for a
#             file kairos refuses at its input check, the bench's median of import+check up to
#             the refusal (that includes XML parsing, which the Java time does not).
#             For other files (--files), `kairos bench synth`'s warm median (in-process).
#     cli     median over --kairos-runs processes of `kairos synth FILE --cores N --json`
#             "time_ms" (synthesis only, one cold run per process); "-" for refused files.
#   ratio = Java median / kairos warm median; cli x = Java median / kairos cli median.
# Requires: java + javac (17 tested), python3, cargo (unless --no-criterion).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FILES_DIR="$ROOT/examples/mcdag/xml"
CORES=8
POLICIES=gedzl,gedf,gllf
WARMUP=20
RUNS=50
KRUNS=11
WARM_RUNS=31
REPEAT=1
CRITERION=1
CRIT_TIME=3
BUILD=0
KEEP=0
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
JAVA_OPTS=${JAVA_OPTS:-}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }

ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --files) FILES_DIR=$2; shift 2 ;;
        --cores) CORES=$2; shift 2 ;;
        --policies) POLICIES=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --kairos-runs) KRUNS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --no-criterion) CRITERION=0; shift ;;
        --warm-runs) WARM_RUNS=$2; shift 2 ;;
        --criterion-time) CRIT_TIME=$2; shift 2 ;;
        --build) BUILD=1; shift ;;
        --keep) KEEP=1; shift ;;
        -h|--help) usage 0 ;;
        -*) echo "unknown option $1" >&2; usage 2 ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
[ ${#ARGS[@]} -ge 1 ] && [ ${#ARGS[@]} -le 2 ] || usage 2
CHECKOUT=${ARGS[0]}
HARNESS=${ARGS[1]:-}

if [ -d "$CHECKOUT/src/fr/tpt/s3/mcdag" ]; then SRC="$CHECKOUT/src"
elif [ -d "$CHECKOUT/fr/tpt/s3/mcdag" ]; then SRC="$CHECKOUT"
else echo "error: $CHECKOUT holds no fr/tpt/s3/mcdag sources (give the MC-DAG checkout or its src/)" >&2; exit 2; fi
for f in scheduling/galap/GlobalGenericMCScheduler.java \
         scheduling/galap/impl/EarlistDeadlineZeroLaxityMCSched.java \
         scheduling/galap/impl/EartliestDeadlineFirstMCSched.java \
         scheduling/galap/impl/LeastLaxityFirstMCSched.java \
         model/VertexScheduling.java model/McDAG.java model/Edge.java; do
    [ -f "$SRC/fr/tpt/s3/mcdag/$f" ] || { echo "error: $SRC/fr/tpt/s3/mcdag/$f missing (this harness targets the global ALAP schedulers of fr.tpt.s3.mcdag.scheduling.galap)" >&2; exit 2; }
done

FILES=()
for i in $(ls "$FILES_DIR" | grep -E '^test-6-[0-9]+\.xml$' | sort -t- -k3 -n); do FILES+=("$FILES_DIR/$i"); done
[ ${#FILES[@]} -gt 0 ] || { echo "error: no test-6-*.xml in $FILES_DIR" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-mcdag-ref.XXXXXX")
if [ "$KEEP" = 1 ]; then echo "scratch folder: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi

# ---------------------------------------------------------------- harness
if [ -n "$HARNESS" ]; then
    cp "$HARNESS" "$WORK/"
    MAIN=$(basename "$HARNESS" .java)
else
    MAIN=RefSynthBench
    cat > "$WORK/RefSynthBench.java" <<'JAVA'
// kairos's timing harness for the MC-DAG framework's global ALAP (GMH-MC-DAG) schedulers.
// It only calls the framework's public model and scheduler classes.
//   java -cp CLASSES RefSynthBench [--cores N] [--warmup N] [--runs N] [--policies edzl,edf,llf] FILE.xml...
// Prints per file and policy:
//   RESULT <file> <policy> <H-slots> <accepted>/<runs> <median-ms> <min-ms> <max-ms> <verdict>
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import fr.tpt.s3.mcdag.model.Edge;
import fr.tpt.s3.mcdag.model.McDAG;
import fr.tpt.s3.mcdag.model.VertexScheduling;
import fr.tpt.s3.mcdag.scheduling.SchedulingException;
import fr.tpt.s3.mcdag.scheduling.galap.GlobalGenericMCScheduler;
import fr.tpt.s3.mcdag.scheduling.galap.impl.EarlistDeadlineZeroLaxityMCSched;
import fr.tpt.s3.mcdag.scheduling.galap.impl.EartliestDeadlineFirstMCSched;
import fr.tpt.s3.mcdag.scheduling.galap.impl.LeastLaxityFirstMCSched;

public class RefSynthBench {

    // The system as the framework's XML reader builds it: DAG ids in document order, vertex
    // ids in actor order within a DAG, wcets by their "number" attribute, one Edge per <port>
    // of the DAG's <ports>, every vertex pointing at its DAG, the DAGs in a HashSet.
    static Set<McDAG> build(Document doc, int levels) {
        Set<McDAG> dags = new HashSet<McDAG>();
        NodeList dagList = doc.getElementsByTagName("mcdag");
        for (int d = 0; d < dagList.getLength(); d++) {
            Element eDag = (Element) dagList.item(d);
            McDAG dag = new McDAG();
            dag.setId(d);
            dag.setDeadline(Integer.parseInt(eDag.getAttribute("deadline")));
            dag.setLevels(levels);
            int nextId = 0;
            NodeList actors = eDag.getElementsByTagName("actor");
            for (int i = 0; i < actors.getLength(); i++) {
                Element e = (Element) actors.item(i);
                int[] wcets = new int[levels];
                NodeList w = e.getElementsByTagName("wcet");
                for (int j = 0; j < levels; j++) {
                    Element we = (Element) w.item(j);
                    wcets[Integer.parseInt(we.getAttribute("number"))] = Integer.parseInt(we.getTextContent().trim());
                }
                VertexScheduling v = new VertexScheduling(nextId++, e.getAttribute("name"), levels);
                v.setWcets(wcets);
                v.setDagRef(dag);
                dag.getVertices().add(v);
            }
            NodeList ports = ((Element) eDag.getElementsByTagName("ports").item(0)).getChildNodes();
            for (int i = 0; i < ports.getLength(); i++) {
                Node n = ports.item(i);
                if (n.getNodeType() != Node.ELEMENT_NODE)
                    continue;
                Element p = (Element) n;
                new Edge(dag.getNodebyName(p.getAttribute("srcActor")), dag.getNodebyName(p.getAttribute("dstActor")));
            }
            dags.add(dag);
        }
        return dags;
    }

    static GlobalGenericMCScheduler scheduler(String policy, Set<McDAG> dags, int cores, int levels) {
        // debug = false, preemption counting = false
        switch (policy) {
            case "edzl": return new EarlistDeadlineZeroLaxityMCSched(dags, cores, levels, false, false);
            case "edf":  return new EartliestDeadlineFirstMCSched(dags, cores, levels, false, false);
            case "llf":  return new LeastLaxityFirstMCSched(dags, cores, levels, false, false);
            default: throw new IllegalArgumentException("unknown policy " + policy + " (edzl, edf, llf)");
        }
    }

    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    public static void main(String[] args) throws Exception {
        int cores = 8, warmup = 20, runs = 50;
        List<String> policies = Arrays.asList("edzl", "edf", "llf");
        List<String> files = new ArrayList<String>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--cores": cores = Integer.parseInt(args[++i]); break;
                case "--warmup": warmup = Integer.parseInt(args[++i]); break;
                case "--runs": runs = Integer.parseInt(args[++i]); break;
                case "--policies": policies = Arrays.asList(args[++i].split(",")); break;
                default: files.add(args[i]);
            }
        }
        for (String file : files) {
            Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new File(file));
            doc.getDocumentElement().normalize();
            int levels = Integer.parseInt(((Element) doc.getElementsByTagName("levels").item(0)).getAttribute("number"));
            String name = new File(file).getName();
            // Loading alone (XML parse + model construction), reported apart, for comparing
            // verdict times with kairos's import+check on the files kairos refuses at input.
            double[] load = new double[runs];
            for (int r = -warmup; r < runs; r++) {
                long t0 = System.nanoTime();
                Document d2 = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new File(file));
                d2.getDocumentElement().normalize();
                build(d2, levels);
                long t1 = System.nanoTime();
                if (r >= 0) load[r] = (t1 - t0) / 1e6;
            }
            Arrays.sort(load);
            System.out.println(String.format(Locale.ROOT, "LOAD %s %.3f", name, median(load)));
            for (String policy : policies) {
                double[] ms = new double[runs];
                int accepted = 0, hp = 0;
                String verdict = "";
                for (int r = -warmup; r < runs; r++) {
                    Set<McDAG> dags = build(doc, levels);          // untimed
                    long t0 = System.nanoTime();
                    GlobalGenericMCScheduler s = scheduler(policy, dags, cores, levels);
                    boolean ok = true;
                    String why = "accepted";
                    try {
                        s.scheduleSystem();
                    } catch (SchedulingException e) {
                        ok = false;
                        String m = String.valueOf(e.getMessage());
                        int at = m.indexOf("buildTable(");
                        why = "rejected:" + (at >= 0 ? m.substring(at, m.indexOf(')', at) + 1) : m).replace(' ', '_');
                    }
                    long t1 = System.nanoTime();
                    if (r >= 0) {
                        ms[r] = (t1 - t0) / 1e6;
                        if (ok) accepted++;
                        hp = s.gethPeriod();
                        if (!verdict.contains(why))
                            verdict = verdict.isEmpty() ? why : verdict + "|" + why;
                    }
                }
                Arrays.sort(ms);
                System.out.println(String.format(Locale.ROOT, "RESULT %s %s %d %d/%d %.3f %.3f %.3f %s",
                        name, policy, hp, accepted, runs, median(ms), ms[0], ms[runs - 1], verdict));
                System.out.flush();
            }
        }
    }
}
JAVA
fi

echo "== building the reference harness ($MAIN) against $SRC"
mkdir -p "$WORK/classes"
"$JAVAC" -nowarn -d "$WORK/classes" -sourcepath "$SRC" "$WORK/$MAIN.java"

KAIROS="$ROOT/target/release/kairos"
if [ "$BUILD" = 1 ] || [ ! -x "$KAIROS" ]; then
    echo "== cargo build --release --bin kairos"
    (cd "$ROOT" && cargo build --release --bin kairos)
fi

JPOL=$(echo "$POLICIES" | sed 's/\bgedzl\b/edzl/; s/\bgedf\b/edf/; s/\bgllf\b/llf/')
echo "== $(date -u '+%F %T UTC'), $(nproc) CPU(s), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   $("$JAVA" -version 2>&1 | head -1); kairos $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "   files: $FILES_DIR (${#FILES[@]}), cores $CORES, policies $POLICIES"

for rep in $(seq 1 "$REPEAT"); do
    D="$WORK/rep$rep"; mkdir -p "$D"
    echo
    echo "== repetition $rep/$REPEAT: kairos, then the reference, back to back"

    # kairos CLI: one synthesis per process, "time_ms" from --json
    : > "$D/kairos-cli.tsv"
    for f in "${FILES[@]}"; do
        for p in ${POLICIES//,/ }; do
            for k in $(seq 1 "$KRUNS"); do
                set +e
                out=$("$KAIROS" synth "$f" --cores "$CORES" --policy "$p" --json 2>/dev/null)
                rc=$?
                set -e
                t=$(printf '%s' "$out" | python3 -c 'import json,sys
try: print(json.load(sys.stdin)["time_ms"])
except Exception: print("-")')
                printf '%s\t%s\t%s\t%s\n' "$(basename "$f")" "$p" "$rc" "$t" >> "$D/kairos-cli.tsv"
            done
        done
    done

    # kairos warm, in-process, on any file: `kairos bench synth` (first + warm median)
    : > "$D/kairos-warm.jsonl"
    for f in "${FILES[@]}"; do
        for p in ${POLICIES//,/ }; do
            set +e
            out=$("$KAIROS" bench synth "$f" --cores "$CORES" --policy "$p" --repeat "$WARM_RUNS" --json 2>/dev/null)
            set -e
            printf '%s' "$out" | python3 -c 'import json,sys
try:
    for r in json.load(sys.stdin): print(json.dumps(dict(r, policy=sys.argv[1])))
except Exception: pass' "$p" >> "$D/kairos-warm.jsonl"
        done
    done

    # kairos criterion bench (its own copy of the files; used only where they are identical)
    if [ "$CRITERION" = 1 ]; then
        echo "   cargo bench -p kairos-mc --bench synth (warm medians) ..."
        (cd "$ROOT" && CRITERION_HOME="$D/criterion" cargo bench -q -p kairos-mc --bench synth -- \
            --warm-up-time 1 --measurement-time "$CRIT_TIME" synth-8-cores) > "$D/bench.txt" 2> "$D/bench.err" \
            || { echo "   (cargo bench failed, see below; continuing without it)"; tail -5 "$D/bench.err"; }
    fi

    echo "   reference: $WARMUP warm-up + $RUNS timed runs per file and policy ..."
    # shellcheck disable=SC2086
    "$JAVA" $JAVA_OPTS -cp "$WORK/classes" "$MAIN" --cores "$CORES" --warmup "$WARMUP" --runs "$RUNS" \
        --policies "$JPOL" "${FILES[@]}" > "$D/reference.txt"

    python3 - "$D" "$FILES_DIR" "$ROOT/examples/mcdag/xml" "$POLICIES" <<'PY'
import json, os, re, statistics, sys, filecmp
d, files_dir, bench_dir, policies = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
jname = {"gedzl": "edzl", "gedf": "edf", "gllf": "llf"}

ref, load = {}, {}
for line in open(os.path.join(d, "reference.txt")):
    p = line.split()
    if p and p[0] == "LOAD":
        load[p[1]] = float(p[2])
    if p and p[0] == "RESULT":
        ref[(p[1], p[2])] = dict(hp=int(p[3]), acc=p[4], med=float(p[5]), verdict=p[8] if len(p) > 8 else "")

bench_synth = {}
for line in open(os.path.join(d, "kairos-warm.jsonl")):
    r = json.loads(line)
    bench_synth[(os.path.basename(r["file"]), r["policy"])] = r["warm_median_ms"]

cli = {}
for line in open(os.path.join(d, "kairos-cli.tsv")):
    f, pol, rc, t = line.rstrip("\n").split("\t")
    e = cli.setdefault((f, pol), dict(rcs=set(), times=[]))
    e["rcs"].add(int(rc))
    if t != "-":
        e["times"].append(float(t))

# bench summary lines: file import+syn synth H ... outcome ; criterion medians from estimates.json
summary, crit = {}, {}
bench_txt = os.path.join(d, "bench.txt")
if os.path.exists(bench_txt):
    for line in open(bench_txt):
        m = re.match(r"(test-6-\d+\.xml)\s+([\d.]+)us\s+(\S+)", line)
        if m:
            summary[m.group(1)] = dict(import_us=float(m.group(2)), refused="refused by the importer" in line)
    root = os.path.join(d, "criterion", "synth-8-cores")
    if os.path.isdir(root):
        for b in os.listdir(root):
            est = os.path.join(root, b, "new", "estimates.json")
            if os.path.exists(est):
                f, pol = b.rsplit("_", 1)
                crit[(f + ".xml", pol)] = json.load(open(est))["median"]["point_estimate"] / 1e6

def same_as_bench(f):
    a, b = os.path.join(files_dir, f), os.path.join(bench_dir, f)
    return os.path.exists(b) and filecmp.cmp(a, b, shallow=False)

files = sorted({f for f, _ in ref}, key=lambda s: int(re.findall(r"\d+", s)[-1]))
hdr = (f"{'file':<13} {'policy':<6} {'H slots':>7}  {'reference':<26} {'ref ms':>9} {'load ms':>7}  "
       f"{'kairos':<8} {'warm ms':>8} {'cli ms':>7} {'ratio':>6} {'cli x':>6} {'+load':>6}")
print(hdr); print("-" * len(hdr))
ratios = {}
for f in files:
    for pol in policies:
        r = ref.get((f, jname[pol]))
        if r is None:
            continue
        c = cli.get((f, pol), dict(rcs=set(), times=[]))
        if 2 in c["rcs"]:
            kv = "refused"
        elif c["rcs"] == {0}:
            kv = "tables"
        elif c["rcs"] == {1}:
            kv = "no"
        else:
            kv = "rc=" + ",".join(map(str, sorted(c["rcs"])))
        warm, src = None, ""
        if same_as_bench(f):
            if kv == "refused" and f in summary:
                warm, src = summary[f]["import_us"] / 1e3, "c"      # import + check, to the refusal
            elif (f, pol) in crit:
                warm = crit[(f, pol)]
        if warm is None and (f, pol) in bench_synth:
            warm, src = bench_synth[(f, pol)], "b"
        cli_ms = statistics.median(c["times"]) if c["times"] else None
        acc = r["acc"] + (" " + r["verdict"].replace("rejected:", "rej ") if r["verdict"] != "accepted" else " accepted")
        ratio = r["med"] / warm if warm else None
        if ratio:
            ratios.setdefault(pol, []).append(ratio)
        cli_x = r["med"] / cli_ms if cli_ms else None
        with open(os.path.join(os.path.dirname(d), "ratios.tsv"), "a") as out:
            out.write(f"{f}\t{pol}\t{ratio or ''}\t{cli_x or ''}\n")
        ld = load.get(f)
        # verdict vs verdict with the XML load on both sides (only where kairos's time includes it)
        e2e = (r["med"] + ld) / warm if (src == "c" and ld is not None) else None
        fmt = lambda x: "-" if x is None else (f"{x:.1f}x" if x < 10 else f"{x:.0f}x")
        print(f"{f:<13} {pol:<6} {r['hp']:>7}  {acc:<26} {r['med']:>9.3f} {(f'{ld:.3f}' if ld is not None else '-'):>7}  "
              f"{kv:<8} {(f'{warm:.3f}{src}' if warm else '-'):>8} {(f'{cli_ms:.3f}' if cli_ms else '-'):>7} "
              f"{fmt(ratio):>6} {fmt(cli_x):>6} {fmt(e2e):>6}")
print()
print("warm: criterion median of synthesize() (in-process); 'b' = `kairos bench synth` warm median")
print("      (files other than the bench's own); 'c' = kairos refused the file at its input")
print("      check, time = bench median of import+check up to the refusal (includes XML parsing).")
print("cli:  median of `kairos synth --json` time_ms, one cold synthesis per process; cli x = ref / cli.")
print("load: reference XML parse + model build (untimed in 'ref ms'); +load: (ref ms + load) / warm,")
print("      for the refused files only, where kairos's time includes its XML import.")
for pol, rs in ratios.items():
    print(f"{pol}: ratio reference/kairos-warm min {min(rs):.1f}x, median {statistics.median(rs):.1f}x, max {max(rs):.0f}x over {len(rs)} files")
PY
done

if [ "$REPEAT" -gt 1 ]; then
    echo
    echo "== per file and policy, the median over the $REPEAT repetitions (the machine is noisy)"
    python3 - "$WORK/ratios.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f, pol, warm, cli = line.rstrip("\n").split("\t")
    e = rows.setdefault((f, pol), ([], []))
    if warm: e[0].append(float(warm))
    if cli: e[1].append(float(cli))
med = lambda xs: f"{statistics.median(xs):.1f}x" if xs else "-"
print(f"{'file':<13} {'policy':<6} {'ratio':>7} {'cli x':>7}")
for (f, pol), (warm, cli) in rows.items():
    print(f"{f:<13} {pol:<6} {med(warm):>7} {med(cli):>7}")
PY
fi
