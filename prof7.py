import duckdb, time
con=duckdb.connect()
con.execute("CREATE TEMP TABLE raw AS SELECT * FROM read_parquet('/tmp/x.parquet')")
n=250
m="'', 'NA', 'N/A', 'n/a', 'na', 'null', 'NULL', 'Null', '-', '#N/A', 'None', 'NaN', 'nan'"
con.execute(f"CREATE MACRO tnull(x) AS CASE WHEN trim(x) IN ({m}) THEN NULL ELSE trim(x) END")
con.execute(f"CREATE TEMP TABLE markers AS SELECT unnest([{m}]) AS v")
for name, tmpl, src in [
  ("sub case", "CASE WHEN tr{i} IN ("+m+") THEN NULL ELSE tr{i} END", "(SELECT " + ", ".join(f"trim(c{i}) AS tr{i}" for i in range(1,n+1)) + " FROM raw)"),
  ("macro", "tnull(c{i})", "raw"),
  ("map lookup", "CASE WHEN map_contains(MAP {{"+", ".join(f"{x}: 1" for x in m.split(", "))+"}}, trim(c{i})) THEN NULL ELSE trim(c{i}) END", "raw"),
  ("eq chain", "CASE WHEN " + " OR ".join(f"trim(c{{i}}) = {x}" for x in m.split(", ")) + " THEN NULL ELSE trim(c{i}) END", "raw"),
  ("regexp", "CASE WHEN regexp_full_match(trim(c{i}), '(|NA|N/A|n/a|na|null|NULL|Null|-|#N/A|None|NaN|nan)') THEN NULL ELSE trim(c{i}) END", "raw"),
]:
    t=time.time()
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE s AS SELECT " + ", ".join(tmpl.format(i=i)+f' AS t{i}' for i in range(1,n+1)) + f" FROM {src}")
        print(name, time.time()-t)
    except Exception as e: print(name, e)
