import tabular, time, sys
e = tabular.connect(":memory:")
ns = e.namespace("a", "b")
t=time.time()
st = ns.ingest_file(sys.argv[1], source_uri="w")
print(time.time()-t, st.state, st.error_code, st.error_message)
