// placeholder: to be written by the owner of this area
