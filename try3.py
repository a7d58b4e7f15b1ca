import tabular, time, glob, sys, collections
e = tabular.connect(":memory:")
ns = e.namespace("a", "b")
files = sorted(f for f in glob.glob("../shared/corpus/**/*", recursive=True) if f.rsplit(".",1)[-1].lower() in ("csv","tsv","txt","prn"))
counts = collections.Counter()
for f in files:
    t = time.time()
    st = ns.ingest_file(f, source_uri=f)
    dt = time.time() - t
    counts[st.state + ":" + str(st.error_code)] += 1
    print(f"{dt:.2f}", st.state, st.error_code, f, (st.error_message or "")[:100], flush=True)
print(counts, len(files))
