// placeholder: written by the owner of this area
