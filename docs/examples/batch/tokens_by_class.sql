-- Which kinds of turn hold the tokens, and how many of them must be kept verbatim.
SELECT class,
       count(*)                         AS units,
       sum(words * 13 // 10)            AS tokens,
       count(*) FILTER (frozen = 'true') AS frozen_units
FROM read_parquet('labels/units/*.parquet')
GROUP BY class
ORDER BY tokens DESC;
