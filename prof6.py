import duckdb, time
con=duckdb.connect()
rel="read_parquet('/tmp/x.parquet')"
n=250
m="'', 'NA', 'N/A', 'n/a', 'na', 'null', 'NULL', 'Null', '-', '#N/A', 'None', 'NaN', 'nan'"
for name, tmpl in [
  ("case in", "CASE WHEN trim(c{i}) IN ("+m+") THEN NULL ELSE trim(c{i}) END"),
  ("list_contains", "CASE WHEN list_contains(["+m+"], trim(c{i})) THEN NULL ELSE trim(c{i}) END"),
  ("trim only", "trim(c{i})"),
]:
    t=time.time()
    con.execute(f"CREATE OR REPLACE TEMP TABLE s AS SELECT *, " + ", ".join(tmpl.format(i=i)+f' AS t{i}' for i in range(1,n+1)) + f" FROM {rel}")
    print(name, time.time()-t)
con.execute("CREATE OR REPLACE TEMP TABLE raw AS SELECT * FROM "+rel)
t=time.time()
con.execute(f"CREATE OR REPLACE TEMP TABLE s AS SELECT *, " + ", ".join("CASE WHEN trim(c{i}) IN ({m}) THEN NULL ELSE trim(c{i}) END".format(i=i,m=m)+f' AS t{i}' for i in range(1,n+1)) + f" FROM raw")
print("case in from table", time.time()-t)
