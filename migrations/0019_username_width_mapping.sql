-- Usernames are compared after PRECIS width mapping (RFC 8265 §3.3): a fullwidth "ａｌｉｃｅ" is
-- "alice", and a new account named like that is refused as taken. Keys written before held
-- the fullwidth forms. Those in the fullwidth ASCII range (U+FF01–U+FF5E) and the ideographic
-- space are mapped here, so such an account still signs in with the name it typed, unless the
-- mapped key is already another account's, or two accounts map to it: the account that has
-- the name keeps it, and a look-alike keeps its old key (it no longer signs in by name: its
-- operator can see it in `authd user list`). Other width forms (halfwidth katakana) stay as
-- they were stored.
WITH mapped AS (
    SELECT id, translate(username_key, '！＂＃＄％＆＇（）＊＋，－．／０１２３４５６７８９：；＜＝＞？＠ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺ［＼］＾＿｀ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ｛｜｝～　', '!"#$%&''()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrstuvwxyz{|}~ ') AS key
    FROM users
    WHERE username_key ~ '[！-～　]'
)
UPDATE users u SET username_key = m.key
FROM mapped m
WHERE u.id = m.id
  AND NOT EXISTS (SELECT 1 FROM users o WHERE o.username_key = m.key)
  AND (SELECT count(*) FROM mapped n WHERE n.key = m.key) = 1;
