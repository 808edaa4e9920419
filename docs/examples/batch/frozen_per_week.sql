-- Share of frozen tokens per week, over the output of `turnlens batch SESSIONS --out labels/`.
-- `modified` is the session file's modification time; tokens are words × 1.3, as in SE-029.
SELECT date_trunc('week', modified)                       AS week,
       count(*)                                           AS sessions,
       sum(tokens)                                        AS tokens,
       round(sum(frozen_tokens) / nullif(sum(tokens), 0), 4) AS frozen_share,
       round(sum(saved_tokens) / nullif(sum(tokens), 0), 4)  AS plan_saves
FROM read_parquet('labels/sessions/*.parquet')
GROUP BY week
ORDER BY week;
