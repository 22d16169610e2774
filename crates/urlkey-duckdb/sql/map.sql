-- urlkey map in DuckDB: the rows of `urlkey map FILE` (policy mapper@1, CSV/JSONL
-- columns line .. error) for a file of one URL per line, from urlkey_outcome.
--
--   LOAD urlkey;                                   -- or LOAD '/path/urlkey.duckdb_extension'
--   SET VARIABLE urlkey_input = 'examples/legacy-urls.txt';
--   .read crates/urlkey-duckdb/sql/map.sql         -- (duckdb CLI; from Python: execute the text)
--   SELECT * FROM urlkey_map ORDER BY line;
--
-- What is equal to `urlkey map` (tested by crates/urlkey-py/tests/test_duckdb.py on the
-- 200,000-line test corpus): the set of rows and, per row, line, observed, status, key,
-- signature, group, duplicate_of, duplicates, variants, classification,
-- removed_tracking, error_code and error. `group` and `duplicate_of` are the same ids as
-- the command's (the line of the signature group's first record, of the key's first
-- record), because lines are numbered as the command numbers them: `\n`, `\r\n` and a
-- lone `\r` end a line, a leading UTF-8 byte-order mark is dropped, and blank and `#`
-- comment lines (after trimming JavaScript white space) are skipped but counted. Order
-- the rows by `line` for the command's order. Not reproduced: `review` (a constant),
-- the JSONL-only lists, and the command's input limits (`--max-line-bytes`, invalid
-- UTF-8: DuckDB's read_text refuses such a file), and several input files.
CREATE OR REPLACE TEMP VIEW urlkey_map AS
WITH physical AS (
    SELECT regexp_split_to_array(regexp_replace(content, '^\x{FEFF}', ''), '\r\n|\n|\r') AS lines
    FROM read_text(getvariable('urlkey_input'))
),
numbered AS (
    SELECT unnest(lines) AS observed, generate_subscripts(lines, 1) AS line
    FROM physical
),
records AS (
    -- Blank and comment lines: empty or `#` after JavaScript's trim (white space,
    -- line terminators, U+FEFF).
    SELECT line, observed
    FROM numbered
    WHERE NOT regexp_matches(observed, '^[\t\n\x{0B}\f\r\p{Zs}\x{FEFF}\x{2028}\x{2029}]*(#|$)')
),
keyed AS (
    SELECT line, observed, urlkey_outcome(observed, 'mapper@1') AS o
    FROM records
),
counted AS (
    SELECT
        line,
        observed,
        o.status AS status,
        o.key AS key,
        o.signature AS signature,
        -- Duplicates: the records sharing a key. Review groups: the keys sharing a
        -- signature. Invalid rows (no key, no signature) take part in neither.
        CASE WHEN o.status = 'ok' THEN min(line) OVER (PARTITION BY o.signature) END AS "group",
        CASE WHEN o.status = 'ok' THEN nullif(min(line) OVER (PARTITION BY o.key), line) END AS duplicate_of,
        CASE WHEN o.status = 'ok' THEN count(*) OVER (PARTITION BY o.key) END AS duplicates,
        CASE WHEN o.status = 'ok' THEN count(DISTINCT o.key) OVER (PARTITION BY o.signature) END AS variants,
        -- The removed names joined with `;` ('' when none, as in the command's rows).
        array_to_string(o.removed_params, ';') AS removed_tracking,
        o.error_code AS error_code,
        o.error_message AS error
    FROM keyed
)
SELECT
    line, observed, status, key, signature, "group", duplicate_of, duplicates, variants,
    CASE
        WHEN status = 'invalid' THEN 'invalid'
        WHEN variants > 1 THEN 'review'
        WHEN duplicates > 1 THEN 'duplicate'
        ELSE 'unique'
    END AS classification,
    removed_tracking,
    error_code,
    error
FROM counted;
