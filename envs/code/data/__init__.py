"""The embedded sample of ``rlenv/CodeIO-v0`` (written for this project; your data goes in ``data_files=``)."""
