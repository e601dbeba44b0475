# Turns a text file (the model's XSD) into the lines of a C string literal:
#   sed -f xsd-to-c.sed model-template.xsd > model-template-xsd.h
s/\\/\\\\/g
s/"/\\"/g
s/^/"/
s/$/\\n"/
