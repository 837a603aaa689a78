# Turns a text file into a C string definition: -DIN=... -DOUT=... -DNAME=...
file(READ "${IN}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
file(WRITE "${OUT}.tmp" "/* generated from ${IN_NAME}; do not edit */\nconst char ${NAME}[] =\n\"${text}\";\n")
file(RENAME "${OUT}.tmp" "${OUT}")
